import { expectError } from '../helpers/errors';
import { postGroup, postJoin } from '../helpers/groups';
import { journalAudit, journalEvents } from '../helpers/journal';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Groups that fill up and one group per player (EXTENSIONS X5): the cap on every admission path
 * (join, targeted and multi-use invitation accept, join-request approval, create with creator), the
 * game's exclusive kinds on the same paths, and both under concurrency, settled by the database.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false', DATABASE_POOL_MAX: '10' });
});
afterAll(() => t.close());

type Auth = Record<string, string>;

const activeCount = async (groupId: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM members WHERE group_id = $1 AND status = 'active'`, [groupId]))[0].n;
const groupRows = async (groupId: string) => ({
  members: (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM members WHERE group_id = $1', [groupId]))[0].n,
  audit: (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${journalAudit()} WHERE group_id = $1`, [groupId]))[0].n,
  events: (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${journalEvents()} WHERE group_id = $1`, [groupId]))[0].n,
});
const identityCount = async (gameId: string) =>
  (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM user_identities WHERE game_id = $1', [gameId]))[0].n;

async function capped(auth: Auth, maxMembers: number, body: Record<string, unknown> = {}) {
  return postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Capped', visibility: 'public', maxMembers, ...body });
}
const invite = async (auth: Auth, groupId: string, body: Record<string, unknown> = {}) => {
  const r = await t.http.post(`/v1/groups/${groupId}/invitations`).set(auth).send(body);
  expect(r.status).toBe(201);
  return r.body as { code: string; uses: number };
};
const accept = (auth: Auth, code: string, userId: string) => t.http.post(`/v1/invitations/${code}/accept`).set(auth).send({ userId });
const askToJoin = async (auth: Auth, groupId: string, userId: string) => {
  const r = await t.http.post(`/v1/groups/${groupId}/join-requests`).set(auth).send({ userId });
  expect(r.status).toBe(201);
  return r.body as { id: string };
};
const approve = (auth: Auth, id: string) => t.http.post(`/v1/join-requests/${id}/approve`).set(auth).send({});
const setExclusive = async (gameId: string, kinds: string[] | null) => {
  const r = await t.http.patch(`/v1/admin/games/${gameId}/config`).set(asAdmin).send({ config: { groups: { exclusiveKinds: kinds } } });
  expect(r.status).toBe(200);
};

describe('the member cap', () => {
  it('a join past maxMembers is 409 group_full and writes nothing, for a user the game knows and one it does not', async () => {
    const g = await authedGame(t);
    const group = await capped(g.auth, 2, { creatorUserId: 'founder' });
    expect((await postJoin(t, g.auth, group.id, { userId: 'second' })).status).toBe(201);
    await postGroup(t, g.auth, { kind: 'guild', name: 'Elsewhere', creatorUserId: 'known' });
    const before = { rows: await groupRows(group.id), identities: await identityCount(g.gameId) };
    for (const userId of ['known', 'stranger']) expectError(await postJoin(t, g.auth, group.id, { userId }), 409, 'group_full');
    expect({ rows: await groupRows(group.id), identities: await identityCount(g.gameId) }).toEqual(before);
    // Someone already in answers as before: a member, not a full group.
    expectError(await postJoin(t, g.auth, group.id, { userId: 'second' }), 409, 'already_member');
  });

  it('30 parallel joins into a group with 6 free places admit exactly 6', async () => {
    const g = await authedGame(t);
    const group = await capped(g.auth, 8, { creatorUserId: 'founder' });
    expect((await postJoin(t, g.auth, group.id, { userId: 'first' })).status).toBe(201);
    // Half of them known to the game, half new to it.
    for (let i = 0; i < 15; i++) await postGroup(t, g.auth, { kind: 'party', name: `p${i}`, creatorUserId: `racer${i}` });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => postJoin(t, g.auth, group.id, { userId: `racer${i}` })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(6);
    for (const r of answers.filter((a) => a.status !== 201)) expectError(r, 409, 'group_full');
    expect(await activeCount(group.id)).toBe(8);
    expect((await t.http.get(`/v1/groups/${group.id}`).set(g.auth)).body.memberCount).toBe(8);
  });

  it('a targeted invitation accept on a full group is 409 and leaves the invitation unused', async () => {
    const g = await authedGame(t);
    const group = await capped(g.auth, 1, { creatorUserId: 'founder', visibility: 'invite-only' });
    const inv = await invite(g.auth, group.id, { targetUserId: 'guest' });
    expectError(await accept(g.auth, inv.code, 'guest'), 409, 'group_full');
    const again = await t.http.get(`/v1/invitations/${inv.code}`).set(g.auth);
    expect(again.body).toMatchObject({ usedAt: null, usedBy: null });
    // Once there is room, the same invitation works.
    await t.http.patch(`/v1/groups/${group.id}`).set(g.auth).send({ maxMembers: 2 });
    expect((await accept(g.auth, inv.code, 'guest')).status).toBe(201);
  });

  it('a multi-use code on a full group counts no use', async () => {
    const g = await authedGame(t);
    const group = await capped(g.auth, 2, { creatorUserId: 'founder', visibility: 'invite-only' });
    const inv = await invite(g.auth, group.id, { maxUses: 5 });
    expect((await accept(g.auth, inv.code, 'a')).status).toBe(201);
    await postGroup(t, g.auth, { kind: 'guild', name: 'Known', creatorUserId: 'b' });
    for (const userId of ['b', 'c']) expectError(await accept(g.auth, inv.code, userId), 409, 'group_full');
    const [row] = await t.db.query<{ uses: number }>('SELECT uses FROM invitations WHERE code = $1', [inv.code]);
    expect(row.uses).toBe(1);
  });

  it('a join-request approval on a full group is 409 and the request stays pending', async () => {
    const g = await authedGame(t);
    const group = await capped(g.auth, 1, { creatorUserId: 'founder', visibility: 'invite-only' });
    const request = await askToJoin(g.auth, group.id, 'hopeful');
    expectError(await approve(g.auth, request.id), 409, 'group_full');
    const [row] = await t.db.query<{ status: string }>('SELECT status FROM join_requests WHERE id = $1', [request.id]);
    expect(row.status).toBe('pending');
    expect(await activeCount(group.id)).toBe(1);
  });

  it('the creator counts as the first member; pending requests and open invitations do not count', async () => {
    const g = await authedGame(t);
    const group = await capped(g.auth, 2, { creatorUserId: 'founder', visibility: 'invite-only' });
    await askToJoin(g.auth, group.id, 'asker');
    await invite(g.auth, group.id, { targetUserId: 'invitee' });
    const link = await invite(g.auth, group.id, { maxUses: 10 });
    expect((await accept(g.auth, link.code, 'joiner')).status).toBe(201);
    expectError(await accept(g.auth, link.code, 'late'), 409, 'group_full');
  });

  it('lowering maxMembers below the count removes nobody; admissions wait until the count is below the cap', async () => {
    const g = await authedGame(t);
    const group = await capped(g.auth, 5, { creatorUserId: 'founder' });
    for (const u of ['a', 'b', 'c']) expect((await postJoin(t, g.auth, group.id, { userId: u })).status).toBe(201);
    const lowered = await t.http.patch(`/v1/groups/${group.id}`).set(g.auth).send({ maxMembers: 2 });
    expect(lowered.status).toBe(200);
    expect(lowered.body).toMatchObject({ maxMembers: 2, memberCount: 4 });
    expectError(await postJoin(t, g.auth, group.id, { userId: 'd' }), 409, 'group_full');
    for (const u of ['a', 'b']) expect((await t.http.post(`/v1/groups/${group.id}/leave`).set(g.auth).send({ userId: u })).status).toBe(200);
    expectError(await postJoin(t, g.auth, group.id, { userId: 'd' }), 409, 'group_full');
    expect((await t.http.post(`/v1/groups/${group.id}/leave`).set(g.auth).send({ userId: 'c' })).status).toBe(200);
    expect((await postJoin(t, g.auth, group.id, { userId: 'd' })).status).toBe(201);
  });
});

describe('exclusive kinds', () => {
  it('a member of a clan cannot become active in a second clan on any path; other kinds are free; leaving frees them', async () => {
    const g = await authedGame(t);
    await setExclusive(g.gameId, ['clan']);
    const first = await postGroup<{ id: string }>(t, g.auth, { kind: 'clan', name: 'First', visibility: 'public', creatorUserId: 'player' });
    const second = await postGroup<{ id: string }>(t, g.auth, { kind: 'clan', name: 'Second', visibility: 'public', creatorUserId: 'chief' });
    const before = await groupRows(second.id);
    expectError(await postJoin(t, g.auth, second.id, { userId: 'player' }), 409, 'already_in_group_of_kind');
    const inv = await invite(g.auth, second.id, { targetUserId: 'player' });
    expectError(await accept(g.auth, inv.code, 'player'), 409, 'already_in_group_of_kind');
    const closed = await postGroup<{ id: string }>(t, g.auth, { kind: 'clan', name: 'Closed', creatorUserId: 'chief2' });
    const request = await askToJoin(g.auth, closed.id, 'player');
    expectError(await approve(g.auth, request.id), 409, 'already_in_group_of_kind');
    expectError(await t.http.post('/v1/groups').set(g.auth).send({ kind: 'clan', name: 'Third', creatorUserId: 'player' }), 409, 'already_in_group_of_kind');
    expect((await groupRows(second.id)).members).toBe(before.members);
    const [{ n: clans }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM groups WHERE game_id = $1 AND kind = 'clan'`, [g.gameId]);
    expect(clans).toBe(3);

    const guild = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Guild', visibility: 'public' });
    expect((await postJoin(t, g.auth, guild.id, { userId: 'player' })).status).toBe(201);

    // The creator owns the first clan and is its only member: they may leave, then join the second.
    expect((await t.http.post(`/v1/groups/${first.id}/leave`).set(g.auth).send({ userId: 'player' })).status).toBe(200);
    expect((await accept(g.auth, inv.code, 'player')).status).toBe(201);
  });

  it('changing the setting removes nobody, and a soft-deleted clan does not hold its members', async () => {
    const g = await authedGame(t);
    const a = await postGroup<{ id: string }>(t, g.auth, { kind: 'clan', name: 'A', visibility: 'public', creatorUserId: 'p' });
    const b = await postGroup<{ id: string }>(t, g.auth, { kind: 'clan', name: 'B', visibility: 'public', creatorUserId: 'p' });
    await setExclusive(g.gameId, ['clan']);
    expect(await activeCount(a.id)).toBe(1);
    expect(await activeCount(b.id)).toBe(1);
    const c = await postGroup<{ id: string }>(t, g.auth, { kind: 'clan', name: 'C', visibility: 'public' });
    expectError(await postJoin(t, g.auth, c.id, { userId: 'p' }), 409, 'already_in_group_of_kind');
    for (const id of [a.id, b.id]) expect((await t.http.delete(`/v1/groups/${id}`).set(g.auth)).status).toBe(200);
    expect((await postJoin(t, g.auth, c.id, { userId: 'p' })).status).toBe(201);
    await setExclusive(g.gameId, null);
    const d = await postGroup<{ id: string }>(t, g.auth, { kind: 'clan', name: 'D', visibility: 'public' });
    expect((await postJoin(t, g.auth, d.id, { userId: 'p' })).status).toBe(201);
  });

  it.each([
    ['a user the game does not know yet', false],
    ['a user the game knows', true],
  ])("one user's parallel joins into 5 clans admit exactly 1: %s", async (_what, known) => {
    const g = await authedGame(t);
    await setExclusive(g.gameId, ['clan']);
    if (known) await postGroup(t, g.auth, { kind: 'guild', name: 'Before', creatorUserId: 'racer' });
    const clans = await Promise.all(
      Array.from({ length: 5 }, (_, i) => postGroup<{ id: string }>(t, g.auth, { kind: 'clan', name: `Clan ${i}`, visibility: 'public' })),
    );
    const answers = await Promise.all(clans.map((c) => postJoin(t, g.auth, c.id, { userId: 'racer' })));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 201)) expectError(r, 409, 'already_in_group_of_kind');
    const [{ n }] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM members m JOIN groups g ON g.id = m.group_id WHERE g.game_id = $1 AND g.kind = 'clan' AND m.external_user_id = 'racer' AND m.status = 'active'`,
      [g.gameId],
    );
    expect(n).toBe(1);
  });

  it.each([
    ['not a list', 'clan'],
    ['21 kinds', Array.from({ length: 21 }, (_, i) => `k${i}`)],
    ['a repeated kind', ['clan', 'clan']],
    ['an empty kind', ['']],
    ['a kind of 65 characters', ['k'.repeat(65)]],
  ])('config groups.exclusiveKinds refuses %s with 400 naming it', async (_what, value) => {
    const g = await authedGame(t);
    const r = await t.http.patch(`/v1/admin/games/${g.gameId}/config`).set(asAdmin).send({ config: { groups: { exclusiveKinds: value } } });
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('config.groups.exclusiveKinds');
  });
});
