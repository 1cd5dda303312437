import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { expectError } from '../helpers/errors';
import { joinOk, postGroup } from '../helpers/groups';
import { asAdmin, authedGame, bearer, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The operator's reads of roles and bans (docs/concepts/admin.md): GET /v1/admin/games/:gameId/
 * groups/:groupId/roles and /v1/admin/games/:gameId/bans answer what their game routes answer for
 * the same data, scoped to the path's game; a group's banned members come from the admin members
 * list with status=banned.
 */
let t: TestApp;
type Auth = Record<string, string>;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const A = (gameId: string) => `/v1/admin/games/${gameId}`;
const admin = (path: string, query: Record<string, string> = {}) => t.http.get(path).query(query).set(asAdmin);
const game = (auth: Auth, path: string, query: Record<string, string> = {}) => t.http.get(path).query(query).set(auth);

async function ok(req: Promise<Response>, status = 200): Promise<Response> {
  const r = await req;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status} ${r.text}`);
  return r;
}

/** 404 from the route itself ("<what> not found"), not from a path no route serves. */
function notFound(r: Response, what: string): void {
  expectError(r, 404, 'not_found');
  expect(r.body.message).toBe(`${what} not found`);
}

async function groupWithRoles(auth: Auth, visibility = 'public'): Promise<string> {
  const group = await postGroup(t, auth, { kind: 'guild', name: 'Roles', visibility });
  for (const [name, priority] of [['member', 0], ['officer', 50], ['leader', 100], ['recruit', -5]] as const) {
    await ok(t.http.post(`/v1/groups/${group.id}/roles`).set(auth).send({ name, priority, color: '#aabbcc' }), 201);
  }
  return group.id;
}

/** Every page of `path`'s list with `query`, following nextCursor; with the raw pages. */
async function pages(get: (q: Record<string, string>) => Promise<Response>, query: Record<string, string>): Promise<unknown[][]> {
  const out: unknown[][] = [];
  let cursor: string | null = null;
  do {
    const r: Response = await ok(get({ ...query, ...(cursor ? { cursor } : {}) }));
    out.push(r.body.items);
    cursor = r.body.nextCursor;
  } while (cursor && out.length < 50);
  return out;
}

describe('GET /v1/admin/games/:gameId/groups/:groupId/roles', () => {
  it("answers the game route's roles: bare array, priority descending, permissions included; secret groups too", async () => {
    const g = await authedGame(t);
    for (const visibility of ['public', 'secret']) {
      const groupId = await groupWithRoles(g.auth, visibility);
      const [officer] = (await game(g.auth, `/v1/groups/${groupId}/roles`)).body.filter((r: { name: string }) => r.name === 'officer');
      await ok(t.http.post(`/v1/roles/${officer.id}/permissions`).set(g.auth).send({ permission: 'guild.invite' }));
      const mine = await ok(game(g.auth, `/v1/groups/${groupId}/roles`));
      const theirs = await ok(admin(`${A(g.gameId)}/groups/${groupId}/roles`));
      expect(theirs.body).toEqual(mine.body);
      expect(theirs.body.map((r: { name: string }) => r.name)).toEqual(['leader', 'officer', 'member', 'recruit']);
      expect(theirs.body[1].permissions).toEqual(['guild.invite']);
    }
    const empty = await postGroup(t, g.auth, { kind: 'guild', name: 'No roles' });
    expect((await ok(admin(`${A(g.gameId)}/groups/${empty.id}/roles`))).body).toEqual([]);
  });

  it("404 for another game's group, a soft-deleted or unknown group, and an unknown game", async () => {
    const a = await authedGame(t);
    const b = await authedGame(t);
    const mine = await groupWithRoles(a.auth);
    const theirs = await groupWithRoles(b.auth);
    notFound(await admin(`${A(a.gameId)}/groups/${theirs}/roles`), 'group');
    notFound(await admin(`${A(b.gameId)}/groups/${mine}/roles`), 'group');
    notFound(await admin(`${A(a.gameId)}/groups/${randomUUID()}/roles`), 'group');
    notFound(await admin(`${A(a.gameId)}/groups/not-a-uuid/roles`), 'group');
    notFound(await admin(`${A(randomUUID())}/groups/${mine}/roles`), 'game');
    notFound(await admin(`${A('not-a-uuid')}/groups/${mine}/roles`), 'game');
    await ok(t.http.delete(`/v1/groups/${mine}`).set(a.auth));
    notFound(await admin(`${A(a.gameId)}/groups/${mine}/roles`), 'group');
    // The game route agrees: the same ids are 404 there too.
    notFound(await game(a.auth, `/v1/groups/${theirs}/roles`), 'group');
    notFound(await game(a.auth, `/v1/groups/${mine}/roles`), 'group');
  });
});

describe('GET /v1/admin/games/:gameId/bans', () => {
  /** Five bans in force (one with an end, one with a reason and moderator), one lapsed, and one in another game. */
  async function bannedGame() {
    const g = await authedGame(t);
    const other = await authedGame(t);
    const ban = (auth: Auth, body: Record<string, unknown>) => ok(t.http.post('/v1/bans').set(auth).send(body), 201);
    await ban(g.auth, { userId: 'u1' });
    await ban(g.auth, { userId: 'u2', reason: 'aimbot', actorUserId: 'mod' });
    await ban(g.auth, { userId: 'u3', expiresAt: new Date(Date.now() + 86_400_000).toISOString() });
    await ban(g.auth, { userId: 'u4' });
    await ban(g.auth, { userId: 'u5' });
    await ban(g.auth, { userId: 'lapsed', expiresAt: new Date(Date.now() - 60_000).toISOString() });
    await ban(other.auth, { userId: 'elsewhere' });
    return { ...g, other };
  }

  it('answers the game route for the same data: in force by default, lapsed ones with includeExpired=true', async () => {
    const g = await bannedGame();
    for (const query of [{}, { includeExpired: 'true' }, { includeExpired: 'false' }] as Record<string, string>[]) {
      const mine = await ok(game(g.auth, '/v1/bans', query));
      const theirs = await ok(admin(`${A(g.gameId)}/bans`, query));
      expect(theirs.body).toEqual(mine.body);
    }
    const inForce = (await admin(`${A(g.gameId)}/bans`)).body.items.map((b: { userId: string }) => b.userId);
    expect(inForce.sort()).toEqual(['u1', 'u2', 'u3', 'u4', 'u5']);
    expect((await admin(`${A(g.gameId)}/bans`, { includeExpired: 'true' })).body.items).toHaveLength(6);
    expect((await admin(`${A(g.other.gameId)}/bans`)).body.items.map((b: { userId: string }) => b.userId)).toEqual(['elsewhere']);
  });

  it('pages by nextCursor exactly as the game route does; a cursor of the game route is good here', async () => {
    const g = await bannedGame();
    const mine = await pages((q) => game(g.auth, '/v1/bans', q), { limit: '2' });
    const theirs = await pages((q) => admin(`${A(g.gameId)}/bans`, q), { limit: '2' });
    expect(theirs).toEqual(mine);
    expect(theirs.map((p) => p.length)).toEqual([2, 2, 1]);
    const first = await ok(game(g.auth, '/v1/bans', { limit: '2' }));
    const next = await ok(admin(`${A(g.gameId)}/bans`, { limit: '2', cursor: first.body.nextCursor }));
    expect(next.body.items).toEqual(mine[1]);
  });

  it("400 for a bad limit, includeExpired or cursor (another game's included); 404 for an unknown game", async () => {
    const g = await bannedGame();
    for (const limit of ['0', '101', 'x']) expectError(await admin(`${A(g.gameId)}/bans`, { limit }), 400, 'bad_request');
    expectError(await admin(`${A(g.gameId)}/bans`, { includeExpired: 'yes' }), 400, 'bad_request');
    expectError(await admin(`${A(g.gameId)}/bans`, { cursor: 'bogus' }), 400, 'bad_request');
    await ok(t.http.post('/v1/bans').set(g.other.auth).send({ userId: 'elsewhere-too' }), 201);
    const foreign = await ok(game(g.other.auth, '/v1/bans', { limit: '1' }));
    expectError(await admin(`${A(g.gameId)}/bans`, { cursor: foreign.body.nextCursor }), 400, 'bad_request');
    notFound(await admin(`${A(randomUUID())}/bans`), 'game');
    notFound(await admin(`${A('not-a-uuid')}/bans`), 'game');
  });
});

describe("a group's banned members", () => {
  it("are the admin members list with status=banned: the game route's banned members, nobody else", async () => {
    const g = await authedGame(t);
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Banning', visibility: 'public' });
    for (const u of ['stays', 'goes', 'also-goes']) await joinOk(t, g.auth, group.id, u);
    await ok(t.http.post(`/v1/groups/${group.id}/bans`).set(g.auth).send({ userId: 'goes', reason: 'griefing' }), 201);
    await ok(t.http.post(`/v1/groups/${group.id}/bans`).set(g.auth).send({ userId: 'never-joined' }), 201);
    await ok(t.http.post(`/v1/groups/${group.id}/bans`).set(g.auth).send({ userId: 'also-goes' }), 201);
    await ok(t.http.delete(`/v1/groups/${group.id}/bans/also-goes`).set(g.auth));
    const mine = await ok(game(g.auth, `/v1/groups/${group.id}/members`, { status: 'banned' }));
    const theirs = await ok(admin(`${A(g.gameId)}/groups/${group.id}/members`, { status: 'banned' }));
    const users = (items: { userId?: string; externalUserId?: string }[]) => items.map((m) => m.userId ?? m.externalUserId).sort();
    expect(users(theirs.body.items)).toEqual(['goes', 'never-joined']);
    expect(users(theirs.body.items)).toEqual(users(mine.body.items));
    expect(theirs.body.items.every((m: { status: string }) => m.status === 'banned')).toBe(true);
    expect(theirs.body).toMatchObject({ total: 2, hasMore: false });
  });
});

describe('authentication', () => {
  it.each(['/groups/GROUP/roles', '/bans'])('%s takes the admin token only: none, a wrong one or a game key is 401 invalid_admin_token', async (suffix) => {
    const g = await authedGame(t);
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Auth' });
    const path = `${A(g.gameId)}${suffix.replace('GROUP', group.id)}`;
    for (const headers of [{}, bearer('jadm_not_the_token'), g.auth]) expectError(await t.http.get(path).set(headers), 401, 'invalid_admin_token');
  });
});
