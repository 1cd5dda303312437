import { GrantSweeper } from '../../src/permissions/grant-sweeper';
import { expectError } from '../helpers/errors';
import { seqUid as uid } from '../helpers/ids';
import { journalAudit, journalEvents } from '../helpers/journal';
import { permissionApi, untilPast } from '../helpers/permissions';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X10 timeouts: set, replace and lift, each with its audit entry and event; `timedOutUntil`
 * on Member answers; the check and every X8 answer denying the game's listed keys and no others,
 * exactly until the end (cache included, before any sweep); the sweeper's `expired` lift; the
 * operators' twins in the operator audit.
 */
describe('X10: member timeouts', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let gameId: string;
  let api: ReturnType<typeof permissionApi>;
  const enc = encodeURIComponent;
  const path = (groupId: string, userId: string) => `/v1/groups/${groupId}/members/${enc(userId)}/timeout`;

  beforeAll(async () => {
    t = await startTestApp();
    ({ auth, gameId } = await authedGame(t, 'timeouts'));
    api = permissionApi(t, auth);
    const r = await t.http.patch(`/v1/admin/games/${gameId}/config`).set(asAdmin).send({ config: { moderation: { timeoutDeniedPermissions: ['chat.send', 'invite'] } } });
    expect(r.status).toBe(200);
  });
  afterAll(() => t.close());

  const audits = (groupId: string, action: string) =>
    t.db.query<{ actor_user_id: string | null; target_id: string; payload: Record<string, unknown> }>(
      `SELECT actor_user_id, target_id, payload FROM ${journalAudit()} WHERE group_id = $1 AND action = $2 ORDER BY created_at, id`,
      [groupId, action],
    );
  const events = (groupId: string, type: string) =>
    t.db
      .query<{ body: Record<string, unknown> }>(`SELECT body FROM ${journalEvents()} WHERE group_id = $1 AND type = $2 ORDER BY created_at, id`, [groupId, type])
      .then((rows) => rows.map((r) => r.body));

  /** A group whose role `officer` grants chat.send, invite and kick, held by a member. */
  async function arranged() {
    const groupId = await api.group();
    const officer = await api.role(groupId, 'officer', 1);
    for (const k of ['chat.send', 'invite', 'kick']) await api.grant(officer, k);
    const userId = uid();
    await api.join(groupId, userId);
    await api.assign(groupId, userId, officer);
    return { groupId, officer, userId };
  }

  it('times out an active member: the Member carries timedOutUntil, with an audit entry naming the actor and a group event', async () => {
    const { groupId, userId } = await arranged();
    const before = Date.now();
    const r = await t.http.post(path(groupId, userId)).set(auth).send({ duration: '1h', reason: 'spam in chat', actorUserId: 'mod-1' });
    expect(r.status).toBe(200);
    const until = Date.parse(r.body.timedOutUntil);
    expect(until).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 3_600_000);
    expect(r.body).toMatchObject({ groupId, userId, status: 'active' });

    const [entry] = await audits(groupId, 'member.timed_out');
    expect(entry).toMatchObject({ target_id: userId, payload: { memberId: r.body.id, until: r.body.timedOutUntil, reason: 'spam in chat' } });
    expect(entry.actor_user_id).not.toBeNull();
    expect(await events(groupId, 'member.timed_out')).toEqual([
      expect.objectContaining({ type: 'member.timed_out', gameId, groupId, member: r.body, until: r.body.timedOutUntil, reason: 'spam in chat' }),
    ]);

    // Every Member answer carries it: the member read and the list.
    expect((await t.http.get(`/v1/groups/${groupId}/members/${enc(userId)}`).set(auth)).body.timedOutUntil).toBe(r.body.timedOutUntil);
    const list = await t.http.get(`/v1/groups/${groupId}/members`).set(auth);
    expect(list.body.items.find((m: { userId: string }) => m.userId === userId).timedOutUntil).toBe(r.body.timedOutUntil);
  });

  it('again while timed out replaces the end, shorter or longer, each time audited', async () => {
    const { groupId, userId } = await arranged();
    const long = await t.http.post(path(groupId, userId)).set(auth).send({ duration: '2d' });
    const short = await t.http.post(path(groupId, userId)).set(auth).send({ duration: '5m' });
    expect(Date.parse(short.body.timedOutUntil)).toBeLessThan(Date.parse(long.body.timedOutUntil));
    const entries = await audits(groupId, 'member.timed_out');
    expect(entries.map((e) => e.payload.until)).toEqual([long.body.timedOutUntil, short.body.timedOutUntil]);
    expect(entries.map((e) => e.payload.reason)).toEqual([null, null]);
    expect(entries[0].actor_user_id).toBeNull();
  });

  it.each([
    ['no duration', {}, 'duration'],
    ['a duration of zero', { duration: '0m' }, 'duration must be a positive integer'],
    ['a unit it does not know', { duration: '10w' }, 'duration must be a positive integer'],
    ['a number', { duration: 600 }, 'duration'],
    ['more than 28 days', { duration: '29d' }, 'duration must be at most 28d'],
    ['more than 28 days in hours', { duration: '673h' }, 'duration must be at most 28d'],
    ['a reason over 500 characters', { duration: '1m', reason: 'x'.repeat(501) }, 'reason'],
    ['an empty actorUserId', { duration: '1m', actorUserId: '' }, 'actorUserId'],
  ])('refuses %s with 400 naming the field, writing nothing', async (_label, body, message) => {
    const { groupId, userId } = await arranged();
    const r = await t.http.post(path(groupId, userId)).set(auth).send(body);
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain(message);
    expect(await audits(groupId, 'member.timed_out')).toEqual([]);
  });

  it('takes 28d exactly', async () => {
    const { groupId, userId } = await arranged();
    const r = await t.http.post(path(groupId, userId)).set(auth).send({ duration: '28d' });
    expect(r.status).toBe(200);
  });

  it('is 409 not_a_member for a user who is no active member, and 404 for a group that is not there', async () => {
    const { groupId, userId } = await arranged();
    expectError(await t.http.post(path(groupId, 'stranger')).set(auth).send({ duration: '1m' }), 409, 'not_a_member');
    await api.leave(groupId, userId);
    expectError(await t.http.post(path(groupId, userId)).set(auth).send({ duration: '1m' }), 409, 'not_a_member');
    expectError(await t.http.post(path('0190a5c8-0000-7000-8000-000000000000', userId)).set(auth).send({ duration: '1m' }), 404, 'not_found');
    // A group that is not there is 404 whatever else is wrong with the request.
    expectError(await t.http.post(path('0190a5c8-0000-7000-8000-000000000000', userId)).set(auth).send({ duration: 'soon' }), 404, 'not_found');
    expect(await audits(groupId, 'member.timed_out')).toEqual([]);
  });

  it('denies the listed keys to the timed-out member in the check, the batch, the effective set and both lists; other keys and members are unaffected', async () => {
    const { groupId, officer, userId } = await arranged();
    const peer = uid();
    await api.join(groupId, peer);
    await api.assign(groupId, peer, officer);
    // An override allowing a listed key does not beat the timeout.
    await api.override(groupId, userId, 'chat.send', true);
    expect(await api.check(userId, groupId, 'invite')).toEqual({ allowed: true, source: 'role', viaRoleId: officer }); // cached before
    await t.http.post(path(groupId, userId)).set(auth).send({ duration: '1h' }).expect(200);

    const timeout = { allowed: false, source: 'timeout' };
    expect(await api.check(userId, groupId, 'chat.send')).toEqual(timeout);
    expect(await api.check(userId, groupId, 'invite')).toEqual(timeout);
    expect(await api.check(userId, groupId, 'kick')).toEqual({ allowed: true, source: 'role', viaRoleId: officer });
    expect(await api.check(peer, groupId, 'invite')).toEqual({ allowed: true, source: 'role', viaRoleId: officer });
    expect(
      await api.batch([
        { userId, groupId, permission: 'invite' },
        { userId, groupId, permission: 'kick' },
        { userId: peer, groupId, permission: 'invite' },
      ]),
    ).toEqual([timeout, { allowed: true, source: 'role', viaRoleId: officer }, { allowed: true, source: 'role', viaRoleId: officer }]);
    expect((await api.effective(groupId, userId)).map((k) => k.permission)).toEqual(['kick']);
    expect(await api.membersAllowed(groupId, 'invite')).toEqual([peer]);
    expect((await api.membersAllowed(groupId, 'kick')).sort()).toEqual([peer, userId].sort());
    expect(await api.groupsAllowing(userId, 'chat.send')).toEqual([]);
    expect(await api.groupsAllowing(userId, 'kick')).toEqual([groupId]);
    // The admin twin of the check answers the same.
    const admin = await t.http.get(`/v1/admin/games/${gameId}/permissions/check`).set(asAdmin).query({ userId, groupId, permission: 'invite' });
    expect(admin.status).toBe(200);
    expect(admin.body).toEqual(timeout);
  });

  it('is exact at its end for every answer, cached ones included, before any sweep', async () => {
    const { groupId, officer, userId } = await arranged();
    const r = await t.http.post(path(groupId, userId)).set(auth).send({ duration: '2s' });
    const until = r.body.timedOutUntil as string;
    const timeout = { allowed: false, source: 'timeout' };
    expect(await api.check(userId, groupId, 'invite')).toEqual(timeout);
    expect(await api.batch([{ userId, groupId, permission: 'invite' }])).toEqual([timeout]);
    expect(await api.membersAllowed(groupId, 'invite')).toEqual([]);

    await untilPast(t, until);
    const granted = { allowed: true, source: 'role', viaRoleId: officer };
    expect(await api.check(userId, groupId, 'invite')).toEqual(granted);
    expect(await api.batch([{ userId, groupId, permission: 'chat.send' }])).toEqual([granted]);
    expect((await api.effective(groupId, userId)).map((k) => k.permission)).toEqual(['chat.send', 'invite', 'kick']);
    expect(await api.membersAllowed(groupId, 'invite')).toEqual([userId]);
    expect(await api.groupsAllowing(userId, 'invite')).toEqual([groupId]);
    // The Member no longer shows the timeout that ended, though the sweeper has not lifted it yet.
    expect((await t.http.get(`/v1/groups/${groupId}/members/${enc(userId)}`).set(auth)).body.timedOutUntil).toBeNull();
    expect(await audits(groupId, 'member.timeout_lifted')).toEqual([]);
  });

  it('the game config decides which keys: a change reaches a cached timed-out member at once', async () => {
    const { groupId, officer, userId } = await arranged();
    await t.http.post(path(groupId, userId)).set(auth).send({ duration: '1h' }).expect(200);
    expect(await api.check(userId, groupId, 'kick')).toEqual({ allowed: true, source: 'role', viaRoleId: officer });
    const { gameId: g2, auth: auth2 } = await authedGame(t, 'timeouts config');
    const other = permissionApi(t, auth2);
    const group2 = await other.group();
    const role2 = await other.role(group2, 'r', 1);
    await other.grant(role2, 'kick');
    await other.join(group2, 'p');
    await other.assign(group2, 'p', role2);
    await t.http.post(path(group2, 'p')).set(auth2).send({ duration: '1h' }).expect(200);
    // Nothing listed (the default): a timeout denies nothing.
    expect(await other.check('p', group2, 'kick')).toEqual({ allowed: true, source: 'role', viaRoleId: role2 });
    await t.http.patch(`/v1/admin/games/${g2}/config`).set(asAdmin).send({ config: { moderation: { timeoutDeniedPermissions: ['kick'] } } }).expect(200);
    expect(await other.check('p', group2, 'kick')).toEqual({ allowed: false, source: 'timeout' });
    expect(await other.membersAllowed(group2, 'kick')).toEqual([]);
  });

  it('DELETE lifts the timeout in force with its audit entry and event; with none in force it answers the member and writes nothing', async () => {
    const { groupId, officer, userId } = await arranged();
    const set = await t.http.post(path(groupId, userId)).set(auth).send({ duration: '1h' });
    expect(await api.check(userId, groupId, 'invite')).toEqual({ allowed: false, source: 'timeout' });
    const r = await t.http.delete(path(groupId, userId)).set(auth).send({ reason: 'appeal accepted', actorUserId: 'mod-2' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ userId, status: 'active', timedOutUntil: null });
    expect(await api.check(userId, groupId, 'invite')).toEqual({ allowed: true, source: 'role', viaRoleId: officer });
    const [entry] = await audits(groupId, 'member.timeout_lifted');
    expect(entry).toMatchObject({ target_id: userId, payload: { memberId: r.body.id, until: set.body.timedOutUntil, reason: 'appeal accepted' } });
    expect(entry.actor_user_id).not.toBeNull();
    expect(await events(groupId, 'member.timeout_lifted')).toEqual([
      expect.objectContaining({ type: 'member.timeout_lifted', member: r.body, until: set.body.timedOutUntil, reason: 'appeal accepted' }),
    ]);

    const again = await t.http.delete(path(groupId, userId)).set(auth);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(r.body);
    expect(await audits(groupId, 'member.timeout_lifted')).toHaveLength(1);
    expect(await events(groupId, 'member.timeout_lifted')).toHaveLength(1);
    expectError(await t.http.delete(path(groupId, 'stranger')).set(auth), 404, 'not_found');
  });

  it('a timeout outlives leaving: a member who rejoins while it runs is still timed out', async () => {
    const { groupId, userId } = await arranged();
    const set = await t.http.post(path(groupId, userId)).set(auth).send({ duration: '1h' });
    await api.leave(groupId, userId);
    const rejoined = await t.http.post(`/v1/groups/${groupId}/join`).set(auth).send({ userId });
    expect(rejoined.body.timedOutUntil).toBe(set.body.timedOutUntil);
    const officer = await api.role(groupId, 'again', 1);
    await api.grant(officer, 'invite');
    await api.assign(groupId, userId, officer);
    expect(await api.check(userId, groupId, 'invite')).toEqual({ allowed: false, source: 'timeout' });
  });

  it('the sweeper lifts a timeout that ended with reason expired, once, audit entry and event', async () => {
    const { groupId, userId } = await arranged();
    const set = await t.http.post(path(groupId, userId)).set(auth).send({ duration: '1s', reason: 'cool down' });
    await untilPast(t, set.body.timedOutUntil);
    const sweeper = t.app.get(GrantSweeper);
    const [first, second] = await Promise.all([sweeper.sweep(), sweeper.sweep()]);
    expect(first.timeouts + second.timeouts).toBeGreaterThanOrEqual(1);
    const lifted = await audits(groupId, 'member.timeout_lifted');
    expect(lifted).toEqual([expect.objectContaining({ actor_user_id: null, target_id: userId, payload: { memberId: set.body.id, until: set.body.timedOutUntil, reason: 'expired' } })]);
    const [event] = await events(groupId, 'member.timeout_lifted');
    expect(event).toMatchObject({ until: set.body.timedOutUntil, reason: 'expired', member: { id: set.body.id, timedOutUntil: null } });
    const [{ timed_out_until }] = await t.db.query<{ timed_out_until: Date | null }>('SELECT timed_out_until FROM members WHERE id = $1', [set.body.id]);
    expect(timed_out_until).toBeNull();
    expect((await sweeper.sweep()).timeouts).toBe(0);
  });

  it('the operators’ twins time out and lift, each in the operator audit', async () => {
    const { groupId, userId } = await arranged();
    const base = `/v1/admin/games/${gameId}/groups/${groupId}/members/${enc(userId)}/timeout`;
    const set = await t.http.post(base).set(asAdmin).send({ duration: '30m', reason: 'raid spam' });
    expect(set.status).toBe(200);
    expect(set.body.timedOutUntil).not.toBeNull();
    const lift = await t.http.delete(base).set(asAdmin);
    expect(lift.status).toBe(200);
    expect(lift.body.timedOutUntil).toBeNull();
    const ops = await t.db.query<{ action: string; target_id: string; details: Record<string, unknown> }>(
      `SELECT action, target_id, details FROM operator_audit WHERE game_id = $1 AND action LIKE 'member.time%' AND target_id = $2 ORDER BY id`,
      [gameId, userId],
    );
    expect(ops).toEqual([
      { action: 'member.timed_out', target_id: userId, details: { groupId, memberId: set.body.id, until: set.body.timedOutUntil, reason: 'raid spam' } },
      { action: 'member.timeout_lifted', target_id: userId, details: { groupId, memberId: set.body.id, until: set.body.timedOutUntil, reason: null } },
    ]);
    expect(await audits(groupId, 'member.timed_out')).toHaveLength(1);
  });
});
