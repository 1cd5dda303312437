import type { Response } from 'supertest';
import { expectError } from '../helpers/errors';
import { block, friendsClient, sendPending, befriend, type FriendsGame } from '../helpers/friends';
import { identityOf } from '../helpers/identities';
import { seqUid } from '../helpers/ids';
import { joinOk, postGroup } from '../helpers/groups';
import { journalAudit } from '../helpers/journal';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * GET /v1/admin/games/:gameId/users/:externalUserId: a user's page in a game for the operator
 * console. Identity, memberships (keyset pages on members_user_order, the game's groups only), the
 * game ban and group bans in force, and the counts of the friends graph, all of the path's game.
 */
let t: TestApp;
type Auth = Record<string, string>;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const userPath = (gameId: string, userId: string) => `/v1/admin/games/${gameId}/users/${encodeURIComponent(userId)}`;
const getUser = (gameId: string, userId: string, query: Record<string, string | number> = {}) =>
  t.http.get(userPath(gameId, userId)).query(query).set(asAdmin);

async function ok(req: Promise<Response>, status = 200): Promise<Response> {
  const r = await req;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status} ${r.text}`);
  return r;
}

async function call(auth: Auth, method: 'post' | 'delete' | 'patch', path: string, body?: object, status?: number): Promise<Response> {
  const req = body === undefined ? t.http[method](path).set(auth) : t.http[method](path).set(auth).send(body);
  const r = await req;
  if (status !== undefined ? r.status !== status : r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GET /v1/admin/games/:gameId/users/:externalUserId', () => {
  it('answers every field: identity, memberships with roles and groups, bans in force, friends graph counts', async () => {
    const g = await authedGame(t);
    const friends: FriendsGame = friendsClient(t, g.gameId, g.key);
    const ann = seqUid('ann');

    // Memberships: active with roles, left, kicked, group-banned (in force), a lapsed group ban, a soft-deleted group.
    const guild = await postGroup<{ id: string; name: string }>(t, g.auth, { kind: 'guild', name: 'Knights of Dawn', visibility: 'public' });
    await joinOk(t, g.auth, guild.id, ann);
    const officer = (await call(g.auth, 'post', `/v1/groups/${guild.id}/roles`, { name: 'Officer', priority: 10, color: '#112233' })).body;
    const recruit = (await call(g.auth, 'post', `/v1/groups/${guild.id}/roles`, { name: 'Recruit', priority: 1 })).body;
    await call(g.auth, 'post', `/v1/groups/${guild.id}/members/${ann}/roles/${recruit.id}`);
    await call(g.auth, 'post', `/v1/groups/${guild.id}/members/${ann}/roles/${officer.id}`);
    await sleep(3);
    const party = await postGroup<{ id: string }>(t, g.auth, { kind: 'party', name: 'Night Watch', visibility: 'public' });
    await joinOk(t, g.auth, party.id, ann);
    await call(g.auth, 'post', `/v1/groups/${party.id}/leave`, { userId: ann });
    await sleep(3);
    const kickers = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Iron Legion', visibility: 'public' });
    await joinOk(t, g.auth, kickers.id, ann);
    await call(g.auth, 'post', `/v1/groups/${kickers.id}/members/${ann}/kick`, {});
    await sleep(3);
    const banning = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Silver Hand', visibility: 'public' });
    await joinOk(t, g.auth, banning.id, ann);
    const until = new Date(Date.now() + 86_400_000).toISOString();
    await call(g.auth, 'post', `/v1/groups/${banning.id}/bans`, { userId: ann, reason: 'spam', expiresAt: until }, 201);
    await sleep(3);
    const lapsed = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Crimson Tide', visibility: 'public' });
    await joinOk(t, g.auth, lapsed.id, ann);
    await call(g.auth, 'post', `/v1/groups/${lapsed.id}/bans`, { userId: ann, expiresAt: new Date(Date.now() - 60_000).toISOString() }, 201);
    await sleep(3);
    const doomed = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Ashen Vow', visibility: 'public' });
    await joinOk(t, g.auth, doomed.id, ann);
    await call(g.auth, 'delete', `/v1/groups/${doomed.id}`);

    // A game ban in force.
    const ban = (await call(g.auth, 'post', '/v1/bans', { userId: ann, reason: 'cheating', actorUserId: 'mod-1' }, 201)).body;

    // The friends graph: 2 friends, 1 request sent, 2 received, 1 block made, 1 block suffered.
    await befriend(friends, ann, seqUid('f'));
    await befriend(friends, seqUid('f'), ann);
    await sendPending(friends, ann, seqUid('to'));
    await sendPending(friends, seqUid('from'), ann);
    await sendPending(friends, seqUid('from'), ann);
    expect((await block(friends, ann, seqUid('blocked'))).status).toBe(201);
    expect((await block(friends, seqUid('blocker'), ann)).status).toBe(201);

    const svcUserId = await identityOf(t, g.gameId, ann);
    const [identity] = await t.db.query<{ created_at: Date }>('SELECT created_at FROM user_identities WHERE game_id = $1 AND user_id = $2', [g.gameId, svcUserId]);
    const r = await ok(getUser(g.gameId, ann));
    expect(Object.keys(r.body).sort()).toEqual(
      ['blockedBy', 'blocks', 'firstSeenAt', 'friendsCount', 'gameBan', 'gameId', 'groupBans', 'memberships', 'requestsReceived', 'requestsSent', 'svcUserId', 'userId'].sort(),
    );
    expect(r.body).toMatchObject({
      gameId: g.gameId,
      userId: ann,
      svcUserId,
      firstSeenAt: identity.created_at.toISOString(),
      gameBan: ban,
      groupBans: 1,
      friendsCount: 2,
      requestsSent: 1,
      requestsReceived: 2,
      blocks: 1,
      blockedBy: 1,
    });
    expect(r.body.firstSeenAt).toMatch(ISO);

    const items = r.body.memberships.items;
    expect(r.body.memberships.nextCursor).toBeNull();
    // Newest joinedAt first: every group of the game the user ever joined, the soft-deleted one included.
    expect(items.map((m: { groupName: string }) => m.groupName)).toEqual(['Ashen Vow', 'Crimson Tide', 'Silver Hand', 'Iron Legion', 'Night Watch', 'Knights of Dawn']);
    const byGroup = Object.fromEntries(items.map((m: { groupId: string }) => [m.groupId, m]));
    const members = await t.db.query<{ id: string; group_id: string; joined_at: Date; left_at: Date | null }>(
      'SELECT id, group_id, joined_at, left_at FROM members WHERE user_id = $1',
      [svcUserId],
    );
    const member = (groupId: string) => members.find((m) => m.group_id === groupId)!;
    expect(byGroup[guild.id]).toEqual({
      memberId: member(guild.id).id,
      groupId: guild.id,
      groupName: 'Knights of Dawn',
      groupKind: 'guild',
      groupSoftDeleted: false,
      status: 'active',
      joinedAt: member(guild.id).joined_at.toISOString(),
      leftAt: null,
      bannedUntil: null,
      roles: [
        { id: officer.id, name: 'Officer', priority: 10, color: '#112233', isDefault: false },
        { id: recruit.id, name: 'Recruit', priority: 1, color: null, isDefault: false },
      ],
    });
    expect(byGroup[party.id]).toMatchObject({ groupKind: 'party', status: 'left', leftAt: member(party.id).left_at!.toISOString(), bannedUntil: null, roles: [] });
    expect(byGroup[kickers.id]).toMatchObject({ status: 'kicked', leftAt: expect.stringMatching(ISO) });
    expect(byGroup[banning.id]).toMatchObject({ status: 'banned', bannedUntil: until, leftAt: expect.stringMatching(ISO) });
    expect(byGroup[lapsed.id]).toMatchObject({ status: 'banned', bannedUntil: expect.stringMatching(ISO) });
    expect(byGroup[doomed.id]).toMatchObject({ groupName: 'Ashen Vow', groupSoftDeleted: true, status: 'active' });
    // The admin members list answers the same roles for the same member.
    const listed = await ok(t.http.get(`/v1/admin/games/${g.gameId}/groups/${guild.id}/members`).set(asAdmin));
    expect(listed.body.items[0].roles).toEqual(byGroup[guild.id].roles);
  });

  it('a user with nothing but an identity: empty memberships, no bans, zero counts', async () => {
    const g = await authedGame(t);
    const friends = friendsClient(t, g.gameId, g.key);
    const lone = seqUid('lone');
    const other = seqUid('other');
    // Blocking anchors both users; lifting it leaves nothing behind.
    expect((await block(friends, lone, other)).status).toBe(201);
    expect((await friends.del(`/v1/users/${lone}/blocks/${other}`)).status).toBe(204);
    const r = await ok(getUser(g.gameId, other));
    expect(r.body).toMatchObject({
      userId: other,
      memberships: { items: [], nextCursor: null },
      gameBan: null,
      groupBans: 0,
      friendsCount: 0,
      requestsSent: 0,
      requestsReceived: 0,
      blocks: 0,
      blockedBy: 0,
    });
  });

  it('an expired game ban reads as none; a lifted one is gone', async () => {
    const g = await authedGame(t);
    const expired = seqUid('expired');
    await call(g.auth, 'post', '/v1/bans', { userId: expired, expiresAt: new Date(Date.now() - 1000).toISOString() }, 201);
    expect((await ok(getUser(g.gameId, expired))).body.gameBan).toBeNull();
    const lifted = seqUid('lifted');
    await call(g.auth, 'post', '/v1/bans', { userId: lifted }, 201);
    expect((await ok(getUser(g.gameId, lifted))).body.gameBan).toMatchObject({ userId: lifted, expiresAt: null });
    await call(g.auth, 'delete', `/v1/bans/${lifted}`, undefined, 204);
    expect((await ok(getUser(g.gameId, lifted))).body.gameBan).toBeNull();
  });

  it('pages memberships by limit and cursor, newest first, never repeating or skipping one', async () => {
    const g = await authedGame(t);
    const pat = seqUid('pat');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const group = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: `G${i}`, visibility: 'public' });
      await joinOk(t, g.auth, group.id, pat);
      ids.unshift(group.id);
    }
    // Two joins in the same millisecond are told apart by the member id.
    await t.db.query(`UPDATE members SET joined_at = date_trunc('second', now()) WHERE user_id = (SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2)`, [g.gameId, pat]);
    const all = (await ok(getUser(g.gameId, pat, { limit: 100 }))).body.memberships.items.map((m: { groupId: string }) => m.groupId);
    expect(all.sort()).toEqual([...ids].sort());
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: Response = await ok(getUser(g.gameId, pat, { limit: 3, ...(cursor ? { cursor } : {}) }));
      expect(r.body.memberships.items.length).toBeLessThanOrEqual(3);
      seen.push(...r.body.memberships.items.map((m: { groupId: string }) => m.groupId));
      // The rest of the page is the same on every page.
      expect(r.body.userId).toBe(pat);
      cursor = r.body.memberships.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    const members = await t.db.query<{ group_id: string }>(
      `SELECT group_id FROM members WHERE user_id = (SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2) ORDER BY joined_at DESC, id DESC`,
      [g.gameId, pat],
    );
    expect(seen).toEqual(members.map((m) => m.group_id));
    // Default page: 50 (all 7 here).
    expect((await ok(getUser(g.gameId, pat))).body.memberships.items).toHaveLength(7);
  });

  it("another game's data never appears, even for an internal user linked into both games", async () => {
    const a = await authedGame(t);
    const b = await authedGame(t);
    const friendsA = friendsClient(t, a.gameId, a.key);
    const friendsB = friendsClient(t, b.gameId, b.key);
    const ann = seqUid('ann');
    const groupA = await postGroup<{ id: string }>(t, a.auth, { kind: 'guild', name: 'Home', visibility: 'public' });
    await joinOk(t, a.auth, groupA.id, ann);
    const svcUserId = (await identityOf(t, a.gameId, ann))!;
    // The same internal user in game B, under another external id, with a life there.
    const annB = seqUid('ann-b');
    await ok(t.http.put(userPath(b.gameId, annB)).set(asAdmin).send({ svcUserId }));
    const groupB = await postGroup<{ id: string }>(t, b.auth, { kind: 'guild', name: 'Away', visibility: 'public' });
    await joinOk(t, b.auth, groupB.id, annB);
    const many = await postGroup<{ id: string }>(t, b.auth, { kind: 'guild', name: 'Away 3', visibility: 'public' });
    await joinOk(t, b.auth, many.id, annB);
    const bannedB = await postGroup<{ id: string }>(t, b.auth, { kind: 'guild', name: 'Away banned', visibility: 'public' });
    await call(b.auth, 'post', `/v1/groups/${bannedB.id}/bans`, { userId: annB }, 201);
    await call(b.auth, 'post', '/v1/bans', { userId: annB }, 201);
    await befriend(friendsB, annB, seqUid('fb'));
    await sendPending(friendsB, annB, seqUid('tb'));
    await sendPending(friendsB, seqUid('fromb'), annB);
    expect((await block(friendsB, annB, seqUid('xb'))).status).toBe(201);
    expect((await block(friendsB, seqUid('yb'), annB)).status).toBe(201);
    void friendsA;

    const r = await ok(getUser(a.gameId, ann));
    expect(r.body).toMatchObject({
      gameId: a.gameId,
      userId: ann,
      svcUserId,
      gameBan: null,
      groupBans: 0,
      friendsCount: 0,
      requestsSent: 0,
      requestsReceived: 0,
      blocks: 0,
      blockedBy: 0,
    });
    expect(r.body.memberships.items.map((m: { groupId: string }) => m.groupId)).toEqual([groupA.id]);
    // And the other way round: game B's page of its own id shows only game B.
    const rb = await ok(getUser(b.gameId, annB));
    expect(rb.body).toMatchObject({ svcUserId, userId: annB, groupBans: 1, friendsCount: 1, requestsSent: 1, requestsReceived: 1, blocks: 1, blockedBy: 1 });
    expect(rb.body.gameBan).toMatchObject({ userId: annB, gameId: b.gameId });
    expect(rb.body.memberships.items.map((m: { groupId: string }) => m.groupId).sort()).toEqual([groupB.id, many.id, bannedB.id].sort());
    // Game A's id is unknown to game B, and game B's to game A.
    expectError(await getUser(b.gameId, ann), 404, 'not_found');
    expectError(await getUser(a.gameId, annB), 404, 'not_found');
    // A cursor of game B's page is refused on game A's.
    const cursorB = (await ok(getUser(b.gameId, annB, { limit: 1 }))).body.memberships.nextCursor;
    expect(cursorB).toEqual(expect.any(String));
    expectError(await getUser(a.gameId, ann, { cursor: cursorB }), 400, 'bad_request');
  });

  it('finds ids exactly: case, spaces and characters that need escaping in a path', async () => {
    const g = await authedGame(t);
    const group = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Exact', visibility: 'public' });
    const odd = `Ann / Ölund?#%& ${seqUid('x')}`;
    await joinOk(t, g.auth, group.id, odd);
    expect((await ok(getUser(g.gameId, odd))).body.userId).toBe(odd);
    expectError(await getUser(g.gameId, odd.toLowerCase()), 404, 'not_found');
    expectError(await getUser(g.gameId, `${odd} `), 404, 'not_found');
    const long = `l${'x'.repeat(254)}`;
    await joinOk(t, g.auth, group.id, long);
    expect((await ok(getUser(g.gameId, long))).body.userId).toBe(long);
  });

  it('404: an unknown game, a malformed game id, a user the game has never seen', async () => {
    const g = await authedGame(t);
    const group = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Here', visibility: 'public' });
    const known = seqUid('known');
    await joinOk(t, g.auth, group.id, known);
    for (const r of [await getUser('0190a5c8-0000-7000-8000-000000000000', known), await getUser('not-a-game', known)]) {
      expectError(r, 404, 'not_found');
      expect(r.body.message).toBe('game not found');
    }
    const never = await getUser(g.gameId, seqUid('never'));
    expectError(never, 404, 'not_found');
    expect(never.body.message).toBe('user not found');
    // A name only mentioned as an invitation target is no user of the game either.
    const target = seqUid('invited');
    await call(g.auth, 'post', `/v1/groups/${group.id}/invitations`, { targetUserId: target }, 201);
    expectError(await getUser(g.gameId, target), 404, 'not_found');
  });

  it('400: an over-long user id, a bad limit, a cursor it did not issue, a NUL character', async () => {
    const g = await authedGame(t);
    const group = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Here', visibility: 'public' });
    const known = seqUid('known');
    await joinOk(t, g.auth, group.id, known);
    const over = await getUser(g.gameId, 'x'.repeat(16_385));
    expectError(over, 400, 'bad_request');
    expect(over.body.message).toBe('userId must be a string of 1-16384 characters');
    const bad: Record<string, string | number>[] = [{ limit: 0 }, { limit: 101 }, { limit: 'ten' }, { cursor: 'not-a-cursor-of-ours' }, { cursor: Buffer.from('["bans:x","a","b"]').toString('base64url') }];
    for (const query of bad) {
      expectError(await getUser(g.gameId, known, query), 400, 'bad_request');
    }
    // A cursor of another user of the same game.
    const other = seqUid('other');
    for (const name of ['A', 'B']) {
      const more = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name, visibility: 'public' });
      await joinOk(t, g.auth, more.id, other);
    }
    const cursor = (await ok(getUser(g.gameId, other, { limit: 1 }))).body.memberships.nextCursor;
    expect((await ok(getUser(g.gameId, other, { limit: 1, cursor }))).body.memberships.items).toHaveLength(1);
    expectError(await getUser(g.gameId, known, { cursor }), 400, 'bad_request');
    expectError(await getUser(g.gameId, 'a\u0000b'), 400, 'bad_request');
  });

  it("an empty user id is 400 naming it, as on the player's export and erasure; no id at all names no route (404)", async () => {
    const g = await authedGame(t);
    const empty = await t.http.get(`/v1/admin/games/${g.gameId}/users/`).set(asAdmin);
    expectError(empty, 400, 'bad_request');
    expect(empty.body.message).toBe('externalUserId must not be empty');
    const none = await t.http.get(`/v1/admin/games/${g.gameId}/users`).set(asAdmin);
    expectError(none, 404, 'not_found');
    expect(none.body.message).toMatch(/^Cannot GET /);
    // GET /v1/bans/ is another route's path: no route serves it, 404.
    expectError(await t.http.get('/v1/bans/').set(g.auth), 404, 'not_found');
    // A blank id is an id like any other: nobody has it here.
    expectError(await getUser(g.gameId, ' '), 404, 'not_found');
  });

  it('401 without the admin token, or with a game key', async () => {
    const g = await authedGame(t);
    expectError(await t.http.get(userPath(g.gameId, 'anyone')), 401, 'invalid_admin_token');
    expectError(await t.http.get(userPath(g.gameId, 'anyone')).set(g.auth), 401, 'invalid_admin_token');
  });

  it('reads only: the PUT of the identity link on the same path still works beside it', async () => {
    const g = await authedGame(t);
    const group = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Link', visibility: 'public' });
    const first = seqUid('first');
    await joinOk(t, g.auth, group.id, first);
    const svcUserId = (await identityOf(t, g.gameId, first))!;
    const other = await authedGame(t);
    const linked = seqUid('linked');
    expect((await ok(t.http.put(userPath(other.gameId, linked)).set(asAdmin).send({ svcUserId }))).body).toEqual({ gameId: other.gameId, externalUserId: linked, svcUserId });
    const r = await ok(getUser(other.gameId, linked));
    expect(r.body).toMatchObject({ userId: linked, svcUserId, memberships: { items: [], nextCursor: null } });
    const audits = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${journalAudit()} WHERE game_id = $1`, [g.gameId]);
    await ok(getUser(g.gameId, first));
    expect((await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${journalAudit()} WHERE game_id = $1`, [g.gameId]))[0].n).toBe(audits[0].n);
  });
});
