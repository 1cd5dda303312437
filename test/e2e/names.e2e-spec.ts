import type { Response } from 'supertest';
import { expectError } from '../helpers/errors';
import { patchGameConfig } from '../helpers/friends';
import { postGroup } from '../helpers/groups';
import { journalAudit, journalEvents } from '../helpers/journal';
import { asAdmin, authedGame, bearer, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Names a game does not allow (EXTENSIONS X10; docs/concepts/moderation.md): the config lists,
 * their enforcement on a group's name and tags through a game key and through an operator's PATCH,
 * the operators' test route, and the compiled policy following a config change on every instance.
 */
let t: TestApp;
let moderator: Record<string, string>;
let viewer: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp();
  const made = async (name: string, role: string) => {
    const r = await t.http.post('/v1/admin/operators').set(asAdmin).send({ name, role });
    if (r.status !== 201) throw new Error(`create operator: ${r.status} ${r.text}`);
    return bearer((r.body as { token: string }).token);
  };
  moderator = await made('Mo (moderation)', 'moderator');
  viewer = await made('Vi (viewer)', 'viewer');
});
afterAll(() => t.close());

const POLICY = { moderation: { names: { blocked: ['cheatz', 'scum'], reserved: ['Admin', 'staff'] } } };
const A = (gameId: string) => `/v1/admin/games/${gameId}`;

async function policedGame(config: object = POLICY) {
  const g = await authedGame(t);
  await patchGameConfig(t, g.gameId, { config });
  return g;
}

function notAllowed(r: Response, field: string, word: string, list: 'blocked' | 'reserved'): void {
  expectError(r, 400, 'name_not_allowed');
  const why = list === 'blocked' ? 'a word this game does not allow' : 'a word this game reserves for its operators';
  expect(r.body.message).toBe(`${field} contains "${word}", ${why}`);
}

const groupRow = (id: string) =>
  t.db.query<{ name: string; tags: string[]; updated_at: Date }>('SELECT name, tags, updated_at FROM groups WHERE id = $1', [id]).then((rows) => rows[0]);
const countOf = (sql: string, params: unknown[]) => t.db.query<{ n: number }>(sql, params).then(([row]) => row.n);

describe('game config moderation keys', () => {
  it('resolves the defaults and stores lists in range', async () => {
    const g = await authedGame(t);
    const before = await t.http.get(`${A(g.gameId)}/config`).set(asAdmin);
    expect(before.body.config.moderation).toEqual({ names: { blocked: [], reserved: [] }, timeoutDeniedPermissions: [], hideGroupAtReporters: null });
    const words = Array.from({ length: 1000 }, (_, i) => `w${i}`);
    const r = await t.http
      .patch(`${A(g.gameId)}/config`)
      .set(asAdmin)
      .send({ config: { moderation: { names: { blocked: words, reserved: ['x'.repeat(64)] }, timeoutDeniedPermissions: ['chat.send', 'p'.repeat(128)] } } });
    expect(r.status).toBe(200);
    expect(r.body.config.moderation.names.blocked).toHaveLength(1000);
    expect(r.body.config.moderation.timeoutDeniedPermissions).toEqual(['chat.send', 'p'.repeat(128)]);
  });

  it.each([
    ['too many blocked words', { names: { blocked: Array.from({ length: 1001 }, (_, i) => `w${i}`) } }, 'config.moderation.names.blocked must be an array of at most 1000 distinct strings of 1-64 characters'],
    ['an empty reserved word', { names: { reserved: [''] } }, 'config.moderation.names.reserved must be an array of at most 1000 distinct strings of 1-64 characters'],
    ['a reserved word over 64 characters', { names: { reserved: ['x'.repeat(65)] } }, 'config.moderation.names.reserved must be an array of at most 1000 distinct strings of 1-64 characters'],
    ['a word twice', { names: { blocked: ['scum', 'scum'] } }, 'config.moderation.names.blocked must be an array of at most 1000 distinct strings of 1-64 characters'],
    ['a word that is not a string', { names: { blocked: [7] } }, 'config.moderation.names.blocked must be an array of at most 1000 distinct strings of 1-64 characters'],
    ['a list that is not an array', { names: { blocked: 'scum' } }, 'config.moderation.names.blocked must be an array of at most 1000 distinct strings of 1-64 characters'],
    ['names that is not an object', { names: ['scum'] }, 'config.moderation.names must be an object or null'],
    ['an unknown list', { names: { banned: [] } }, 'config has unknown keys: moderation.names.banned; known keys are moderation.names.blocked, moderation.names.reserved'],
    ['too many denied permissions', { timeoutDeniedPermissions: Array.from({ length: 101 }, (_, i) => `p${i}`) }, 'config.moderation.timeoutDeniedPermissions must be an array of at most 100 distinct strings of 1-128 characters'],
    ['a denied permission over 128 characters', { timeoutDeniedPermissions: ['p'.repeat(129)] }, 'config.moderation.timeoutDeniedPermissions must be an array of at most 100 distinct strings of 1-128 characters'],
  ])('refuses %s with 400 naming the key, storing nothing', async (_label, moderation, message) => {
    const g = await authedGame(t);
    const r = await t.http.patch(`${A(g.gameId)}/config`).set(asAdmin).send({ config: { moderation } });
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toBe(message);
    const after = await t.http.get(`${A(g.gameId)}/config`).set(asAdmin);
    expect(after.body.config.moderation.names).toEqual({ blocked: [], reserved: [] });
  });
});

describe('group name and tags through a game key', () => {
  it.each([
    [{ name: 'The Adm1n Squad' }, 'name', 'Admin', 'reserved'],
    [{ name: 'c.h.e.a.t.z' }, 'name', 'cheatz', 'blocked'],
    [{ name: 'Fine', tags: ['casual', 'lang:en', 'staff'] }, 'tags[2]', 'staff', 'reserved'],
    [{ name: 'Fine', tags: ['scum-crew'] }, 'tags[0]', 'scum', 'blocked'],
    [{ name: 'STAFF', tags: ['scum'] }, 'name', 'staff', 'reserved'],
  ] as const)('create with %j: 400 naming %s and %s; no group', async (fields, field, word, list) => {
    const g = await policedGame();
    const r = await t.http.post('/v1/groups').set(g.auth).send({ kind: 'guild', creatorUserId: 'ann', ...fields });
    notAllowed(r, field, word, list);
    expect(await countOf('SELECT count(*)::int AS n FROM groups WHERE game_id = $1', [g.gameId])).toBe(0);
  });

  it('creates groups whose words only look like listed ones', async () => {
    const g = await policedGame();
    for (const name of ['Badminton Club', 'Staffing Agency', 'Scumbling Painters', 'admin123']) {
      const r = await t.http.post('/v1/groups').set(g.auth).send({ kind: 'guild', name, tags: ['administration'] });
      expect(r.status).toBe(201);
    }
  });

  it('a game without a policy takes every name', async () => {
    const g = await authedGame(t);
    const r = await t.http.post('/v1/groups').set(g.auth).send({ kind: 'guild', name: 'Admin Staff', tags: ['cheatz'] });
    expect(r.status).toBe(201);
  });

  it.each([
    [{ name: 'Official 5taff' }, 'name', 'staff', 'reserved'],
    [{ tags: ['pvp', 'cheatzzz'] }, 'tags[1]', 'cheatz', 'blocked'],
    [{ name: 'Renamed', tags: ['admin'] }, 'tags[0]', 'Admin', 'reserved'],
  ] as const)('PATCH with %j: 400 naming %s and %s; the group unchanged, no audit', async (fields, field, word, list) => {
    const g = await policedGame();
    const group = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Before', tags: ['pvp'] });
    const before = await groupRow(group.id);
    const r = await t.http.patch(`/v1/groups/${group.id}`).set(g.auth).send(fields);
    notAllowed(r, field, word, list);
    expect(await groupRow(group.id)).toEqual(before);
    expect(await countOf(`SELECT count(*)::int AS n FROM ${journalAudit()} WHERE group_id = $1 AND action = 'group.updated'`, [group.id])).toBe(0);
  });

  it('a PATCH that leaves name and tags alone is not checked, and a missing group is 404 first', async () => {
    const g = await policedGame();
    const group = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Before' });
    expect((await t.http.patch(`/v1/groups/${group.id}`).set(g.auth).send({ visibility: 'public' })).status).toBe(200);
    const missing = await t.http.patch('/v1/groups/00000000-0000-7000-8000-000000000000').set(g.auth).send({ name: 'Admin' });
    expectError(missing, 404, 'not_found');
  });
});

describe('PATCH /v1/admin/games/:gameId/groups/:groupId', () => {
  it('lets a moderator use a reserved word, writing the group audit, the event and the operator audit', async () => {
    const g = await policedGame();
    const group = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Helpers', tags: ['help'] });
    const r = await t.http.patch(`${A(g.gameId)}/groups/${group.id}`).set(moderator).send({ name: 'Official Staff', tags: ['help', 'admin'] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: group.id, name: 'Official Staff', tags: ['help', 'admin'] });
    const game = await t.http.get(`/v1/groups/${group.id}`).set(g.auth);
    expect(game.body).toEqual(r.body);

    const audit = await t.db.query<{ actor_user_id: string | null; payload: unknown }>(
      `SELECT actor_user_id, payload FROM ${journalAudit()} WHERE group_id = $1 AND action = 'group.updated'`,
      [group.id],
    );
    const diff = { before: { name: 'Helpers', tags: ['help'] }, after: { name: 'Official Staff', tags: ['help', 'admin'] } };
    expect(audit).toEqual([{ actor_user_id: null, payload: diff }]);
    expect(await countOf(`SELECT count(*)::int AS n FROM ${journalEvents()} WHERE game_id = $1 AND type = 'group.updated'`, [g.gameId])).toBe(1);
    const ops = await t.http.get('/v1/admin/operator-audit').query({ action: 'group.updated', limit: '100' }).set(asAdmin);
    expect(ops.status).toBe(200);
    expect((ops.body.items as { gameId: string }[]).filter((e) => e.gameId === g.gameId)).toEqual([
      expect.objectContaining({ operatorName: 'Mo (moderation)', action: 'group.updated', targetId: group.id, details: diff }),
    ]);
  });

  it('refuses a blocked word as the game route does, changing nothing', async () => {
    const g = await policedGame();
    const group = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Helpers' });
    const before = await groupRow(group.id);
    notAllowed(await t.http.patch(`${A(g.gameId)}/groups/${group.id}`).set(asAdmin).send({ name: 'Staff of Scum' }), 'name', 'scum', 'blocked');
    notAllowed(await t.http.patch(`${A(g.gameId)}/groups/${group.id}`).set(asAdmin).send({ tags: ['ch34tz'] }), 'tags[0]', 'cheatz', 'blocked');
    expect(await groupRow(group.id)).toEqual(before);
    expect(await countOf("SELECT count(*)::int AS n FROM operator_audit WHERE game_id = $1 AND action = 'group.updated'", [g.gameId])).toBe(0);
  });

  it("takes the game route's body rules, answers 404 for another game's group, and refuses a viewer", async () => {
    const g = await policedGame();
    const other = await authedGame(t);
    const group = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Helpers' });
    expectError(await t.http.patch(`${A(g.gameId)}/groups/${group.id}`).set(asAdmin).send({}), 400, 'bad_request');
    expectError(await t.http.patch(`${A(g.gameId)}/groups/${group.id}`).set(asAdmin).send({ name: '' }), 400, 'bad_request');
    expectError(await t.http.patch(`${A(other.gameId)}/groups/${group.id}`).set(asAdmin).send({ name: 'x' }), 404, 'not_found');
    expectError(await t.http.patch(`${A(g.gameId)}/groups/${group.id}`).set(viewer).send({ name: 'x' }), 403, 'permission_denied');
    expect((await groupRow(group.id)).name).toBe('Helpers');
  });

  it('a no-op writes no audit of either kind', async () => {
    const g = await policedGame();
    const group = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Helpers' });
    expect((await t.http.patch(`${A(g.gameId)}/groups/${group.id}`).set(moderator).send({ name: 'Helpers' })).status).toBe(200);
    expect(await countOf("SELECT count(*)::int AS n FROM operator_audit WHERE game_id = $1 AND action = 'group.updated'", [g.gameId])).toBe(0);
    expect(await countOf(`SELECT count(*)::int AS n FROM ${journalAudit()} WHERE group_id = $1 AND action = 'group.updated'`, [group.id])).toBe(0);
  });
});

describe('POST /v1/admin/games/:gameId/names/test', () => {
  const test = (gameId: string, text: unknown, auth = moderator) => t.http.post(`${A(gameId)}/names/test`).set(auth).send({ text });

  it('answers every match with its list and its offsets into the text', async () => {
    const g = await policedGame();
    const r = await test(g.gameId, '🐉 The 0ff1cial ADM1N - s.t.a.f.f of cheatzzz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      allowed: false,
      matches: [
        { word: 'Admin', list: 'reserved', start: 16, end: 21 },
        { word: 'staff', list: 'reserved', start: 24, end: 33 },
        { word: 'cheatz', list: 'blocked', start: 37, end: 45 },
      ],
    });
    const text = '🐉 The 0ff1cial ADM1N - s.t.a.f.f of cheatzzz';
    expect((r.body.matches as { start: number; end: number }[]).map((m) => text.slice(m.start, m.end))).toEqual(['ADM1N', 's.t.a.f.f', 'cheatzzz']);
  });

  it('allows a clean text, writes nothing, and refuses a viewer and bad bodies', async () => {
    const g = await policedGame();
    const operatorEntries = () => countOf('SELECT count(*)::int AS n FROM operator_audit WHERE game_id = $1', [g.gameId]);
    const entries = await operatorEntries();
    expect((await test(g.gameId, 'Badminton admirers')).body).toEqual({ allowed: true, matches: [] });
    expect(await operatorEntries()).toBe(entries);
    expectError(await test(g.gameId, 'x', viewer), 403, 'permission_denied');
    for (const text of ['', 'x'.repeat(121), 7, undefined]) {
      const r = await test(g.gameId, text);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toBe('text must be a string of 1-120 characters');
    }
    expectError(await t.http.post(`${A(g.gameId)}/names/test`).set(moderator).send({ text: 'x', extra: 1 }), 400, 'bad_request');
    expectError(await test('00000000-0000-7000-8000-000000000000', 'x'), 404, 'not_found');
  });
});

describe('the compiled policy after a config change', () => {
  it('follows the change on the same instance at once and on another within a second', async () => {
    const two = await startTestApp({}, t.db);
    try {
      const g = await policedGame();
      const tryName = (app: TestApp) => app.http.post('/v1/groups').set(g.auth).send({ kind: 'guild', name: 'Team Rocket' });
      // Both instances compile the policy before the change.
      expect((await tryName(t)).status).toBe(201);
      expect((await tryName(two)).status).toBe(201);
      await patchGameConfig(t, g.gameId, { config: { moderation: { names: { blocked: ['rocket'] } } } });
      notAllowed(await tryName(t), 'name', 'rocket', 'blocked');
      const t0 = Date.now();
      while ((await tryName(two)).status === 201) {
        if (Date.now() - t0 > 1000) throw new Error('the other instance still takes the name after 1 s');
        await new Promise((r) => setTimeout(r, 10));
      }
      notAllowed(await tryName(two), 'name', 'rocket', 'blocked');
      // The reserved list kept: only the blocked one was replaced.
      notAllowed(await two.http.post('/v1/groups').set(g.auth).send({ kind: 'guild', name: 'Admin' }), 'name', 'Admin', 'reserved');
      await patchGameConfig(two, g.gameId, { config: { moderation: null } });
      expect((await tryName(two)).status).toBe(201);
      const t1 = Date.now();
      while ((await tryName(t)).status !== 201) {
        if (Date.now() - t1 > 1000) throw new Error('the first instance still refuses the name after 1 s');
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      await two.close();
    }
  });
});
