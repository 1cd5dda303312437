import { expectError } from '../helpers/errors';
import { groupAudits, groupOutbox } from '../helpers/group-rows';
import { joinOk, postGroup, postJoin, postLeave } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * For a user the game knows, these write in the group lookup's statement: a public join, a leave
 * or kick, a group ban or its lifting with the ban's history (activateAlongside,
 * deactivateAlongside, banAlongside, unbanAlongside, groupHistoryAlongside), and an invitation's
 * accept with its use (redeemAlongside, invitedActivationAlongside); a group's creator is made a
 * member in the group's insert (creatorActivationAlongside). Whatever the lookup then
 * refuses must leave no trace: the write is guarded by the same conditions, or rolled back with
 * the refusal. Each user here is known to the game (a member elsewhere) before the case begins.
 */
let t: TestApp;
let auth: Record<string, string>;
let elsewhere: string;
beforeAll(async () => {
  t = await startTestApp();
  ({ auth } = await authedGame(t, 'alongside'));
  elsewhere = await group();
});
afterAll(() => t.close());

async function group(body: Record<string, unknown> = {}): Promise<string> {
  return (await postGroup(t, auth, { kind: 'guild', name: 'G', visibility: 'public', ...body })).id;
}

/** A user the game knows: a member of another group. */
async function knownUser(): Promise<string> {
  const userId = uid('known');
  await joinOk(t, auth, elsewhere, userId);
  return userId;
}

const rowsOf = (groupId: string, userId: string) =>
  t.db.query<{ status: string; left_at: Date | null }>('SELECT status, left_at FROM members WHERE group_id = $1 AND external_user_id = $2', [groupId, userId]);

/** The counter as the wire shows it, checked against the active rows. */
async function memberCount(groupId: string): Promise<number> {
  const [row] = await t.db.query<{ counter: number; actual: number }>(
    `SELECT g.active_member_count + coalesce((SELECT sum(d.delta)::int FROM group_member_count_deltas d WHERE d.group_id = g.id), 0) AS counter,
            (SELECT count(*)::int FROM members m WHERE m.group_id = g.id AND m.status = 'active') AS actual
     FROM groups g WHERE g.id = $1`,
    [groupId],
  );
  expect(row.counter).toBe(row.actual);
  return row.counter;
}

it('a known user joins and leaves: one member row, its audit entries and events, exact times', async () => {
  const g = await group();
  const userId = await knownUser();
  const joined = await postJoin(t, auth, g, { userId });
  expect(joined.status).toBe(201);
  expect(joined.body).toMatchObject({ userId, groupId: g, status: 'active', leftAt: null });
  const [row] = await t.db.query<{ joined_at: Date }>('SELECT joined_at FROM members WHERE id = $1', [joined.body.id]);
  expect(joined.body.joinedAt).toBe(row.joined_at.toISOString());

  const left = await postLeave(t, auth, g, { userId });
  expect(left.status).toBe(200);
  expect(left.body).toMatchObject({ id: joined.body.id, status: 'left', joinedAt: joined.body.joinedAt });
  const [after] = await rowsOf(g, userId);
  expect(left.body.leftAt).toBe(after.left_at!.toISOString());

  expect((await groupAudits(t, g, 'member.joined')).map((a) => a.payload)).toEqual([{ memberId: joined.body.id, via: 'public-join' }]);
  expect(await groupAudits(t, g, 'member.left')).toHaveLength(1);
  const [event] = await groupOutbox(t, g, 'member.left');
  expect((event.body as { member: unknown }).member).toEqual(left.body);
  expect(await memberCount(g)).toBe(0);
});

it('a wrong or missing passcode leaves a known user out, and the right one lets them in', async () => {
  const g = await group({ passcode: 'open-sesame' });
  const userId = await knownUser();
  expectError(await postJoin(t, auth, g, { userId }), 403, 'passcode_required');
  expectError(await postJoin(t, auth, g, { userId, passcode: 'not-it-at-all' }), 403, 'passcode_invalid');
  expect(await rowsOf(g, userId)).toEqual([]);
  expect(await groupAudits(t, g, 'member.joined')).toEqual([]);
  expect((await postJoin(t, auth, g, { userId, passcode: 'open-sesame' })).status).toBe(201);
  expect((await rowsOf(g, userId)).map((r) => r.status)).toEqual(['active']);
});

it('an invite-only or secret group refuses a known user and writes nothing', async () => {
  for (const visibility of ['invite-only', 'secret'] as const) {
    const g = await group({ visibility });
    const userId = await knownUser();
    const r = await postJoin(t, auth, g, { userId });
    expect(r.status).toBe(visibility === 'secret' ? 404 : 403);
    expect(await rowsOf(g, userId)).toEqual([]);
    expect(await memberCount(g)).toBe(0);
  }
});

it('a group ban and a game-wide ban keep a known user out and their rows as they were', async () => {
  const g = await group();
  const groupBanned = await knownUser();
  expect((await t.http.post(`/v1/groups/${g}/bans`).set(auth).send({ userId: groupBanned })).status).toBe(201);
  expectError(await postJoin(t, auth, g, { userId: groupBanned }), 403, 'banned');
  expect((await rowsOf(g, groupBanned)).map((r) => r.status)).toEqual(['banned']);

  const gameBanned = await knownUser();
  expect((await t.http.post('/v1/bans').set(auth).send({ userId: gameBanned })).status).toBe(201);
  expectError(await postJoin(t, auth, g, { userId: gameBanned }), 403, 'banned');
  expect(await rowsOf(g, gameBanned)).toEqual([]);
  expect(await memberCount(g)).toBe(0);
});

it('a deleted group is 404 to a known user, who stays as they were', async () => {
  const g = await group();
  const userId = await knownUser();
  await joinOk(t, auth, g, userId);
  expect((await t.http.delete(`/v1/groups/${g}`).set(auth)).status).toBe(200);
  expectError(await postLeave(t, auth, g, { userId }), 404, 'not_found');
  expectError(await postJoin(t, auth, g, { userId: await knownUser() }), 404, 'not_found');
  expect((await rowsOf(g, userId)).map((r) => r.status)).toEqual(['active']);
});

it('a second join is 409 already_member; leaving twice answers the left member unchanged; a kick ends a membership', async () => {
  const g = await group();
  const userId = await knownUser();
  await joinOk(t, auth, g, userId);
  expectError(await postJoin(t, auth, g, { userId }), 409, 'already_member');
  const first = await postLeave(t, auth, g, { userId });
  const second = await postLeave(t, auth, g, { userId });
  expect(second.status).toBe(200);
  expect(second.body).toEqual(first.body);
  expect(await groupAudits(t, g, 'member.left')).toHaveLength(1);

  const kicked = await knownUser();
  await joinOk(t, auth, g, kicked);
  const r = await t.http.post(`/v1/groups/${g}/members/${kicked}/kick`).set(auth).send({ reason: 'afk' });
  expect(r.status).toBe(200);
  expect(r.body.status).toBe('kicked');
  expect((await groupAudits(t, g, 'member.kicked')).map((a) => a.payload)).toEqual([{ memberId: r.body.id, reason: 'afk' }]);
  expect(await memberCount(g)).toBe(0);
});

it('parallel joins and leaves of the same known users settle to one transition each, and an exact count', async () => {
  const g = await group();
  const users = await Promise.all(Array.from({ length: 8 }, () => knownUser()));
  const joins = await Promise.all(users.flatMap((userId) => [1, 2, 3].map(() => postJoin(t, auth, g, { userId }))));
  expect(joins.filter((r) => r.status === 201)).toHaveLength(users.length);
  expect(joins.filter((r) => r.status === 409)).toHaveLength(users.length * 2);
  expect(await memberCount(g)).toBe(users.length);
  const leaves = await Promise.all(users.flatMap((userId) => [1, 2, 3].map(() => postLeave(t, auth, g, { userId }))));
  expect(leaves.every((r) => r.status === 200 && r.body.status === 'left')).toBe(true);
  expect(await groupAudits(t, g, 'member.left')).toHaveLength(users.length);
  expect(await groupAudits(t, g, 'member.joined')).toHaveLength(users.length);
  expect(await memberCount(g)).toBe(0);
});

it('a group ban of a known member, and its lifting, write the member row and one history entry each; lifting no ban is 404 and writes none', async () => {
  const g = await group();
  const userId = await knownUser();
  await joinOk(t, auth, g, userId);
  const history = () =>
    t.db.query<{ kind: string; reason: string | null; expires_at: Date | null }>(
      `SELECT kind, reason, expires_at FROM ban_history WHERE group_id = $1 AND external_user_id = $2 ORDER BY id`,
      [g, userId],
    );
  const until = new Date(Date.now() + 3_600_000).toISOString();
  const banned = await t.http.post(`/v1/groups/${g}/bans`).set(auth).send({ userId, reason: 'griefing', expiresAt: until });
  expect(banned.status).toBe(201);
  expect(banned.body).toMatchObject({ userId, status: 'banned', bannedUntil: until });
  expect(banned.body.leftAt).toEqual(expect.any(String));
  expect(await memberCount(g)).toBe(0);
  expect(await history()).toEqual([{ kind: 'set', reason: 'griefing', expires_at: new Date(until) }]);

  const lifted = await t.http.delete(`/v1/groups/${g}/bans/${userId}`).set(auth);
  expect(lifted.status).toBe(200);
  expect(lifted.body).toMatchObject({ id: banned.body.id, status: 'left', bannedUntil: null });
  expectError(await t.http.delete(`/v1/groups/${g}/bans/${userId}`).set(auth), 404, 'not_found');
  expect((await history()).map((h) => h.kind)).toEqual(['set', 'lifted']);
  expect((await groupAudits(t, g, 'member.unbanned')).length).toBe(1);
});

it('known users accepting an invitation: parallel accepts admit exactly its uses; a member or a banned user counts none', async () => {
  const g = await group({ visibility: 'invite-only' });
  const link = await t.http.post(`/v1/groups/${g}/invitations`).set(auth).send({ maxUses: 2 });
  expect(link.status).toBe(201);
  const uses = async () => (await t.db.query<{ uses: number }>('SELECT uses FROM invitations WHERE id = $1', [link.body.id]))[0].uses;
  const accept = (userId: string) => t.http.post(`/v1/invitations/${link.body.code}/accept`).set(auth).send({ userId });

  const banned = await knownUser();
  expect((await t.http.post('/v1/bans').set(auth).send({ userId: banned })).status).toBe(201);
  expectError(await accept(banned), 403, 'banned');
  expect(await uses()).toBe(0);

  const users = await Promise.all(Array.from({ length: 6 }, () => knownUser()));
  const answers = await Promise.all(users.map((u) => accept(u)));
  expect(answers.filter((r) => r.status === 201)).toHaveLength(2);
  expect(answers.filter((r) => r.status === 410 && r.body.code === 'invitation_used')).toHaveLength(4);
  expect(await uses()).toBe(2);
  expect(await memberCount(g)).toBe(2);
  const admitted = answers.flatMap((r, i) => (r.status === 201 ? [users[i]] : []));
  expectError(await accept(admitted[0]), 410, 'invitation_used');
  expect((await groupAudits(t, g, 'member.joined')).map((a) => a.target_id).sort()).toEqual([...admitted].sort());
});

it('a known member accepting a fresh invitation is 409 already_member, and the invitation keeps its uses', async () => {
  const g = await group();
  const userId = await knownUser();
  await joinOk(t, auth, g, userId);
  const link = await t.http.post(`/v1/groups/${g}/invitations`).set(auth).send({ maxUses: 3 });
  expectError(await t.http.post(`/v1/invitations/${link.body.code}/accept`).set(auth).send({ userId }), 409, 'already_member');
  const [{ uses }] = await t.db.query<{ uses: number }>('SELECT uses FROM invitations WHERE id = $1', [link.body.id]);
  expect(uses).toBe(0);
});

it('a group created by a known user or a new one has its creator as its one active member, counted and audited', async () => {
  for (const creatorUserId of [await knownUser(), uid('newcomer')]) {
    const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'founded', visibility: 'public', creatorUserId });
    expect(r.status).toBe(201);
    expect(r.body.memberCount).toBe(1);
    expect((await rowsOf(r.body.id, creatorUserId)).map((m) => m.status)).toEqual(['active']);
    expect(await memberCount(r.body.id)).toBe(1);
    const [joined] = await groupAudits(t, r.body.id, 'member.joined');
    expect(joined).toMatchObject({ target_id: creatorUserId, payload: { via: 'creator' } });
    const [event] = await groupOutbox(t, r.body.id, 'group.created');
    expect((event.body as { group: { memberCount: number } }).group.memberCount).toBe(1);
  }
});
