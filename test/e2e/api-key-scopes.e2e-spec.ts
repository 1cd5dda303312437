import { ApiKeyCache } from '../../src/games/api-key-cache';
import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TEN_YEARS = 315_360_000;

/** Scoped and expiring API keys: what a key may do (read, write) and until when. */
describe('API key scopes and expiry', () => {
  let t: TestApp;
  let gameId: string;
  beforeAll(async () => {
    t = await startTestApp();
    gameId = (await newGame(t, 'scoped')).gameId;
  });
  afterAll(() => t.close());

  const keysPath = () => `/v1/admin/games/${gameId}/api-keys`;
  const mint = (body?: object) => {
    const req = t.http.post(keysPath()).set(asAdmin);
    return body === undefined ? req : req.send(body);
  };
  const prefixOf = (key: string) => key.slice(0, key.indexOf('.'));
  const groupCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM groups WHERE game_id = $1', [gameId]))[0].n;

  describe('mint', () => {
    it.each([
      ['no body', undefined, ['read', 'write'], null],
      ['an empty body', {}, ['read', 'write'], null],
      ['read only', { scopes: ['read'] }, ['read'], null],
      ['read and write', { scopes: ['read', 'write'] }, ['read', 'write'], null],
      ['write listed first', { scopes: ['write', 'read'] }, ['write', 'read'], null],
      ['an expiry', { expiresIn: 3600 }, ['read', 'write'], 3600],
      ['read only with an expiry', { scopes: ['read'], expiresIn: 60 }, ['read'], 60],
      ['both scopes with the longest expiry', { scopes: ['read', 'write'], expiresIn: TEN_YEARS }, ['read', 'write'], TEN_YEARS],
    ])('with %s: 201, the scopes and expiresAt = createdAt + expiresIn, in the answer, the list and the row', async (_, body, scopes, lifetime) => {
      const r = await mint(body);
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ scopes, revokedAt: null, key: expect.stringMatching(/^jk_/) });
      if (lifetime === null) expect(r.body.expiresAt).toBeNull();
      else expect(Date.parse(r.body.expiresAt) - Date.parse(r.body.createdAt)).toBe(lifetime * 1000);
      const listed = (await t.http.get(keysPath()).set(asAdmin)).body.items.find((k: { id: string }) => k.id === r.body.id);
      const { key: _secret, ...record } = r.body;
      expect(listed).toEqual(record);
      const [row] = await t.db.query<{ scopes: string[]; expires_at: Date | null }>('SELECT scopes, expires_at FROM api_keys WHERE id = $1', [r.body.id]);
      expect(row.scopes).toEqual(scopes);
      expect(row.expires_at?.toISOString() ?? null).toBe(r.body.expiresAt);
    });

    it.each([
      ['write alone', { scopes: ['write'] }, 'scopes'],
      ['no scope', { scopes: [] }, 'scopes'],
      ['an unknown scope', { scopes: ['read', 'admin'] }, 'scopes'],
      ['a repeated scope', { scopes: ['read', 'read'] }, 'scopes'],
      ['a string instead of a list', { scopes: 'read' }, 'scopes'],
      ['null scopes', { scopes: null }, 'scopes'],
      ['a scope that is not a string', { scopes: ['read', 1] }, 'scopes'],
      ['an expiry under a minute', { expiresIn: 59 }, 'expiresIn'],
      ['a zero expiry', { expiresIn: 0 }, 'expiresIn'],
      ['a negative expiry', { expiresIn: -60 }, 'expiresIn'],
      ['an expiry over ten years', { expiresIn: TEN_YEARS + 1 }, 'expiresIn'],
      ['a fractional expiry', { expiresIn: 90.5 }, 'expiresIn'],
      ['an expiry as a string', { expiresIn: '3600' }, 'expiresIn'],
      ['a null expiry', { expiresIn: null }, 'expiresIn'],
    ])('refuses %s with 400 bad_request naming the field, and mints nothing', async (_, body, field) => {
      const before = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys')).at(0)!.n;
      const r = await mint(body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'bad_request', status: 400 });
      expect(r.body.message).toMatch(new RegExp(`^${field} `));
      expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys')).at(0)!.n).toBe(before);
    });
  });

  describe('a key minted without a body', () => {
    it('reads and writes, never expires, and whoami says so', async () => {
      const r = await mint();
      const auth = bearer(r.body.key);
      const me = await t.http.get('/v1/whoami').set(auth);
      expect(me.status).toBe(200);
      expect(me.body).toEqual({ gameId, gameName: 'scoped', keyId: r.body.id, keyPrefix: prefixOf(r.body.key), scopes: ['read', 'write'], expiresAt: null });
      const group = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'Full key' });
      expect(group.status).toBe(201);
      expect((await t.http.get(`/v1/groups/${group.body.id}`).set(auth)).status).toBe(200);
      expect((await t.http.delete(`/v1/groups/${group.body.id}`).set(auth)).status).toBeLessThan(300);
    });
  });

  describe('a read key', () => {
    let readKey: { id: string; key: string };
    let groupId: string;
    beforeAll(async () => {
      readKey = (await mint({ scopes: ['read'] })).body;
      const full = await mint();
      groupId = (await t.http.post('/v1/groups').set(bearer(full.body.key)).send({ kind: 'guild', name: 'Readable' })).body.id;
    });

    it('reads: GET answers 200 and whoami tells its scopes', async () => {
      const auth = bearer(readKey.key);
      expect((await t.http.get(`/v1/groups/${groupId}`).set(auth)).status).toBe(200);
      const me = await t.http.get('/v1/whoami').set(auth);
      expect(me.body).toMatchObject({ keyId: readKey.id, scopes: ['read'], expiresAt: null });
    });

    it('creating a group is 403 permission_denied naming the write scope, and leaves no group', async () => {
      const before = await groupCount();
      const r = await t.http.post('/v1/groups').set(bearer(readKey.key)).send({ kind: 'guild', name: 'Never made', creatorUserId: 'nobody' });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ code: 'permission_denied', status: 403, message: expect.stringMatching(/write scope/) });
      expect(await groupCount()).toBe(before);
      const anchored = await t.db.query('SELECT 1 FROM user_identities WHERE game_id = $1 AND external_id = $2', [gameId, 'nobody']);
      expect(anchored).toEqual([]);
    });

    it.each([
      ['PATCH', (id: string) => `/v1/groups/${id}`, { name: 'Renamed' }],
      ['DELETE', (id: string) => `/v1/groups/${id}`, undefined],
      ['POST', (id: string) => `/v1/groups/${id}/join`, { userId: 'reader' }],
    ])('%s is 403 too and changes nothing', async (method, path, body) => {
      const req = t.http[method.toLowerCase() as 'patch' | 'delete' | 'post'](path(groupId)).set(bearer(readKey.key));
      const r = await (body ? req.send(body) : req);
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('permission_denied');
      const [group] = await t.db.query<{ name: string; soft_deleted_at: Date | null }>('SELECT name, soft_deleted_at FROM groups WHERE id = $1', [groupId]);
      expect(group).toEqual({ name: 'Readable', soft_deleted_at: null });
      expect(await t.db.query('SELECT 1 FROM members WHERE group_id = $1', [groupId])).toEqual([]);
    });

    it('is refused with 403 before its body is validated: a bad body does not tell a read key why', async () => {
      const r = await t.http.post('/v1/groups').set(bearer(readKey.key)).send({ kind: '' });
      expect(r.status).toBe(403);
    });
  });

  describe('an expired key', () => {
    const expire = (keyId: string) => t.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [keyId]);

    it('is 401 invalid_api_key saying it expired, and whoami tells expiresAt while it works', async () => {
      const r = await mint({ expiresIn: 60 });
      const me = await t.http.get('/v1/whoami').set(bearer(r.body.key));
      expect(me.status).toBe(200);
      expect(me.body.expiresAt).toBe(r.body.expiresAt);
      await expire(r.body.id);
      // Dropped from this instance's cache, as a restart or another instance would never have had it.
      t.app.get(ApiKeyCache).evict(prefixOf(r.body.key));
      const refused = await t.http.get('/v1/whoami').set(bearer(r.body.key));
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ code: 'invalid_api_key', status: 401, message: expect.stringMatching(/expired/) });
      const write = await t.http.post('/v1/groups').set(bearer(r.body.key)).send({ kind: 'guild', name: 'Too late' });
      expect(write.status).toBe(401);
    });

    it('is refused once its expiry passes even while it is cached: the clock is read on every request', async () => {
      const r = await mint({ expiresIn: 60 });
      const prefix = prefixOf(r.body.key);
      // Bring the expiry to 1.5 s from now before the key is first used, so the cached copy holds it.
      await t.db.query(`UPDATE api_keys SET expires_at = now() + interval '1500 milliseconds' WHERE id = $1`, [r.body.id]);
      expect((await t.http.get('/v1/whoami').set(bearer(r.body.key))).status).toBe(200);
      const cached = t.app.get(ApiKeyCache).resolve(prefix);
      expect(cached).not.toBeInstanceOf(Promise);
      expect(cached).toMatchObject({ keyId: r.body.id, expiresAt: expect.any(Number) });
      await sleep(1600);
      // Still cached (no reload), yet refused.
      expect(t.app.get(ApiKeyCache).resolve(prefix)).toBe(cached);
      const refused = await t.http.get('/v1/whoami').set(bearer(r.body.key));
      expect(refused.status).toBe(401);
      expect(refused.body.message).toMatch(/expired/);
    });

    it('a wrong secret on an expired key is the generic refusal: the expiry is told only to the holder of the key', async () => {
      const r = await mint({ expiresIn: 60 });
      await expire(r.body.id);
      const wrong = `${prefixOf(r.body.key)}.${Buffer.alloc(32, 7).toString('base64url')}`;
      const refused = await t.http.get('/v1/whoami').set(bearer(wrong));
      expect(refused.status).toBe(401);
      expect(refused.body.message).not.toMatch(/expired/);
    });

    it('the list shows an expired key with its expiresAt, unrevoked', async () => {
      const r = await mint({ expiresIn: 60 });
      await expire(r.body.id);
      const listed = (await t.http.get(keysPath()).set(asAdmin)).body.items.find((k: { id: string }) => k.id === r.body.id);
      expect(listed.revokedAt).toBeNull();
      expect(Date.parse(listed.expiresAt)).toBeLessThan(Date.now());
    });
  });
});
