import { DataSource } from 'typeorm';
import { GroupsRepository } from '../../src/groups/groups.repository';
import { expectError } from '../helpers/errors';
import { postGroup, postJoin } from '../helpers/groups';
import { journalAudit, journalEvents } from '../helpers/journal';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Group ownership (EXTENSIONS X6): POST /v1/groups/:id/owner, and the owner rule on leave, kick
 * and group ban; a game-wide ban leaves ownership alone.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => t.close());

type Auth = Record<string, string>;
const setOwner = (auth: Auth, groupId: string, body: Record<string, unknown>) => t.http.post(`/v1/groups/${groupId}/owner`).set(auth).send(body);
const leave = (auth: Auth, groupId: string, userId: string) => t.http.post(`/v1/groups/${groupId}/leave`).set(auth).send({ userId });
const written = async (groupId: string) => ({
  audit: await t.db.query<{ action: string; payload: unknown; actor_user_id: string | null }>(
    `SELECT action, payload, actor_user_id FROM ${journalAudit()} WHERE group_id = $1 ORDER BY created_at, id`,
    [groupId],
  ),
  events: await t.db.query<{ type: string; body: Record<string, unknown> }>(`SELECT type, body FROM ${journalEvents()} WHERE group_id = $1 ORDER BY era, xid, seq`, [groupId]),
  members: await t.db.query<{ external_user_id: string; status: string }>('SELECT external_user_id, status FROM members WHERE group_id = $1 ORDER BY external_user_id', [groupId]),
});

async function guild(auth: Auth, members: string[] = ['b', 'c']) {
  const g = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Owned', visibility: 'public', creatorUserId: 'a' });
  for (const u of members) expect((await postJoin(t, auth, g.id, { userId: u })).status).toBe(201);
  return g;
}

describe('POST /v1/groups/:id/owner', () => {
  it('makes an active member the owner: 200 Group, audit and event group.owner_changed with the external ids and the actor', async () => {
    const g = await authedGame(t);
    const group = await guild(g.auth);
    const r = await setOwner(g.auth, group.id, { userId: 'b', actorUserId: 'a' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: group.id, ownerUserId: 'b', memberCount: 3 });
    const { audit, events } = await written(group.id);
    const change = audit.filter((a) => a.action === 'group.owner_changed');
    expect(change).toHaveLength(1);
    expect(change[0].payload).toEqual({ from: 'a', to: 'b' });
    const [{ user_id: actor }] = await t.db.query<{ user_id: string }>(`SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = 'a'`, [g.gameId]);
    expect(change[0].actor_user_id).toBe(actor);
    const event = events.filter((e) => e.type === 'group.owner_changed');
    expect(event).toHaveLength(1);
    expect(event[0].body).toMatchObject({ type: 'group.owner_changed', groupId: group.id, fromUserId: 'a', toUserId: 'b', group: { ownerUserId: 'b' } });
    expect((await t.http.get(`/v1/groups/${group.id}`).set(g.auth)).body.ownerUserId).toBe('b');
  });

  it('naming the owner again answers 200 and writes nothing', async () => {
    const g = await authedGame(t);
    const group = await guild(g.auth);
    const before = await written(group.id);
    const r = await setOwner(g.auth, group.id, { userId: 'a' });
    expect(r.status).toBe(200);
    expect(r.body.ownerUserId).toBe('a');
    expect(await written(group.id)).toEqual(before);
  });

  it.each([
    ['a user the game never saw', 'nobody'],
    ['a member who left', 'c'],
    ['a user of another group only', 'elsewhere'],
  ])('409 not_a_member for %s, writing nothing', async (_what, userId) => {
    const g = await authedGame(t);
    const group = await guild(g.auth);
    expect((await leave(g.auth, group.id, 'c')).status).toBe(200);
    await postGroup(t, g.auth, { kind: 'guild', name: 'Other', creatorUserId: 'elsewhere' });
    const before = await written(group.id);
    expectError(await setOwner(g.auth, group.id, { userId }), 409, 'not_a_member');
    expect(await written(group.id)).toEqual(before);
  });

  it('400 naming userId when it is missing or empty; 404 for an unknown group', async () => {
    const g = await authedGame(t);
    const group = await guild(g.auth, []);
    for (const body of [{}, { userId: '' }, { userId: 7 }]) {
      const r = await setOwner(g.auth, group.id, body);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain('userId');
    }
    expectError(await setOwner(g.auth, '01a21b6f-eeec-756b-a53e-34011fe790bb', { userId: 'a' }), 404, 'not_found');
  });
});

describe('the owner rule', () => {
  it('the owner cannot leave, be kicked or be group-banned while others remain: 409 owner_must_transfer, nothing written', async () => {
    const g = await authedGame(t);
    const group = await guild(g.auth);
    const before = await written(group.id);
    expectError(await leave(g.auth, group.id, 'a'), 409, 'owner_must_transfer');
    expectError(await t.http.post(`/v1/groups/${group.id}/members/a/kick`).set(g.auth), 409, 'owner_must_transfer');
    expectError(await t.http.post(`/v1/groups/${group.id}/bans`).set(g.auth).send({ userId: 'a' }), 409, 'owner_must_transfer');
    expect(await written(group.id)).toEqual(before);
  });

  it('the owner can leave after a transfer', async () => {
    const g = await authedGame(t);
    const group = await guild(g.auth);
    expect((await setOwner(g.auth, group.id, { userId: 'c' })).status).toBe(200);
    expect((await leave(g.auth, group.id, 'a')).status).toBe(200);
    expect((await t.http.get(`/v1/groups/${group.id}`).set(g.auth)).body).toMatchObject({ ownerUserId: 'c', memberCount: 2 });
  });

  it('the owner who is the last active member may leave; the group then has no owner, with no entry of its own', async () => {
    const g = await authedGame(t);
    const group = await guild(g.auth, ['b']);
    expect((await leave(g.auth, group.id, 'b')).status).toBe(200);
    expect((await leave(g.auth, group.id, 'a')).status).toBe(200);
    const got = await t.http.get(`/v1/groups/${group.id}`).set(g.auth);
    expect(got.body).toMatchObject({ ownerUserId: null, memberCount: 0 });
    const { audit, events } = await written(group.id);
    expect(audit.map((a) => a.action)).not.toContain('group.owner_changed');
    expect(events.map((e) => e.type)).not.toContain('group.owner_changed');
    expect(events.at(-1)).toMatchObject({ type: 'member.left', body: { member: { userId: 'a' } } });
    // A later member does not become the owner by themself.
    expect((await postJoin(t, g.auth, group.id, { userId: 'c' })).status).toBe(201);
    expect((await t.http.get(`/v1/groups/${group.id}`).set(g.auth)).body.ownerUserId).toBeNull();
  });

  it('a group ban of the owner as the last active member ends the ownership too', async () => {
    const g = await authedGame(t);
    const group = await guild(g.auth, []);
    expect((await t.http.post(`/v1/groups/${group.id}/bans`).set(g.auth).send({ userId: 'a' })).status).toBe(201);
    expect((await t.http.get(`/v1/groups/${group.id}`).set(g.auth)).body.ownerUserId).toBeNull();
  });

  it("a member write's lookup counts the members for the group's owner alone (the count only an owner's departure reads)", async () => {
    const g = await authedGame(t);
    const group = await guild(g.auth, ['b', 'c', 'd']);
    expect((await leave(g.auth, group.id, 'd')).status).toBe(200);
    const groups = t.app.get(GroupsRepository);
    const counted = await t.app.get(DataSource).transaction(async (m) => ({
      owner: (await groups.findWithUser(m, g.gameId, group.id, 'a', { lock: false, banScope: false }))?.memberCount,
      member: (await groups.findWithUser(m, g.gameId, group.id, 'b', { lock: false, banScope: false }))?.memberCount,
      stranger: (await groups.findWithUser(m, g.gameId, group.id, 'nobody', { lock: false, banScope: false }))?.memberCount,
    }));
    expect(counted).toEqual({ owner: 3, member: null, stranger: null });
  });

  it('a game-wide ban leaves the ownership alone', async () => {
    const g = await authedGame(t);
    const group = await guild(g.auth);
    expect((await t.http.post('/v1/bans').set(g.auth).send({ userId: 'a' })).status).toBe(201);
    expect((await t.http.get(`/v1/groups/${group.id}`).set(g.auth)).body.ownerUserId).toBe('a');
  });

  it('a webhook may subscribe to group.owner_changed', async () => {
    const g = await authedGame(t);
    const r = await t.http.post('/v1/webhooks').set(g.auth).send({ url: 'https://example.com/hook', events: ['group.owner_changed'] });
    expect(r.status).toBe(201);
  });
});
