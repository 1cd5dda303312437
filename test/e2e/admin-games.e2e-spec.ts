import { randomUUID } from 'node:crypto';
import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SPEC §4 admin surface: games and API keys. */
describe('admin games and API keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe('POST/GET /v1/admin/games', () => {
    it('creates a game: 201 WireAdminGame with zero counts', async () => {
      const r = await t.http.post('/v1/admin/games').set(asAdmin).send({ name: 'Starfall' });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Starfall',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        groupCount: 0,
        activeMemberCount: 0,
        apiKeyCount: 0,
      });
      const got = await t.http.get(`/v1/admin/games/${r.body.id}`).set(asAdmin);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(r.body);
    });

    it.each([['x'], ['x'.repeat(200)]])('accepts a name of %#', async (name) => {
      expect((await t.http.post('/v1/admin/games').set(asAdmin).send({ name })).status).toBe(201);
    });

    it.each([[''], ['x'.repeat(201)], [null], [12]])('rejects name %p with 400 naming the field', async (name) => {
      const r = await t.http.post('/v1/admin/games').set(asAdmin).send({ name });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('bad_request');
      expect(r.body.message).toMatch(/name/);
    });

    it('names are not unique', async () => {
      const a = await t.http.post('/v1/admin/games').set(asAdmin).send({ name: 'same' });
      const b = await t.http.post('/v1/admin/games').set(asAdmin).send({ name: 'same' });
      expect(a.body.id).not.toBe(b.body.id);
    });

    it('an unknown or malformed game id is 404 not_found', async () => {
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const r = await t.http.get(`/v1/admin/games/${id}`).set(asAdmin);
        expect(r.status).toBe(404);
        expect(r.body.code).toBe('not_found');
      }
    });

    it('lists newest first with the counts, honouring limit 1-200', async () => {
      const first = await t.http.post('/v1/admin/games').set(asAdmin).send({ name: 'older' });
      await sleep(5);
      const second = await t.http.post('/v1/admin/games').set(asAdmin).send({ name: 'newer' });
      const r = await t.http.get('/v1/admin/games?limit=2').set(asAdmin);
      expect(r.status).toBe(200);
      expect(r.body.items.map((g: { id: string }) => g.id)).toEqual([second.body.id, first.body.id]);
      expect(r.body.items[0]).toMatchObject({ groupCount: 0, activeMemberCount: 0, apiKeyCount: 0 });
      expect((await t.http.get('/v1/admin/games?limit=200').set(asAdmin)).status).toBe(200);
      for (const bad of ['0', '201', 'abc', '1.5']) {
        const e = await t.http.get(`/v1/admin/games?limit=${bad}`).set(asAdmin);
        expect(e.status).toBe(400);
        expect(e.body.message).toMatch(/limit/);
      }
    });

    it('list is deterministic for games created in the same millisecond (id descending)', async () => {
      const r = await t.http.get('/v1/admin/games?limit=200').set(asAdmin);
      const items: { id: string; createdAt: string }[] = r.body.items;
      for (let i = 1; i < items.length; i++) {
        const [a, b] = [items[i - 1], items[i]];
        expect(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id)).toBe(true);
      }
    });
  });

  describe('API keys', () => {
    it('mints a key: record plus the full key, 32-byte base64url secret, stored only as a hash', async () => {
      const g = await t.http.post('/v1/admin/games').set(asAdmin).send({ name: 'keys' });
      const r = await t.http.post(`/v1/admin/games/${g.body.id}/api-keys`).set(asAdmin);
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.any(String),
        gameId: g.body.id,
        prefix: expect.stringMatching(/^jk_[0-9a-f]{16}$/),
        createdAt: expect.any(String),
        revokedAt: null,
        scopes: ['read', 'write'],
        expiresAt: null,
        name: null,
        lastUsedAt: null,
        key: expect.stringMatching(/^jk_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/),
      });
      const secret = r.body.key.split('.')[1];
      expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
      const [row] = await t.db.query<{ prefix: string; hash_hex: string }>(
        `SELECT prefix, encode(secret_hash, 'hex') AS hash_hex FROM api_keys WHERE id = $1`,
        [r.body.id],
      );
      expect(row.prefix).toBe(r.body.prefix);
      expect(row.hash_hex).toHaveLength(64);
      expect(JSON.stringify(await t.db.query('SELECT * FROM api_keys'))).not.toContain(secret);
    });

    it('lists keys newest first, revoked included, never with a secret', async () => {
      const g = await newGame(t, 'list keys');
      await sleep(5);
      const k2 = await t.http.post(`/v1/admin/games/${g.gameId}/api-keys`).set(asAdmin);
      await t.http.post(`/v1/admin/games/${g.gameId}/api-keys/${g.keyId}/revoke`).set(asAdmin);
      const r = await t.http.get(`/v1/admin/games/${g.gameId}/api-keys`).set(asAdmin);
      expect(r.status).toBe(200);
      expect(r.body.items.map((k: { id: string }) => k.id)).toEqual([k2.body.id, g.keyId]);
      expect(r.body.items[1].revokedAt).toEqual(expect.any(String));
      expect(r.body.items[0].key).toBeUndefined();
      expect(r.text).not.toContain(g.key.split('.')[1]);
      expect(r.text).not.toContain(k2.body.key.split('.')[1]);
    });

    it('revoke is idempotent, keeps the first revokedAt and rejects the key', async () => {
      const g = await newGame(t, 'revoke');
      const first = await t.http.post(`/v1/admin/games/${g.gameId}/api-keys/${g.keyId}/revoke`).set(asAdmin);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ id: g.keyId, gameId: g.gameId, revokedAt: expect.any(String) });
      expect(first.body.key).toBeUndefined();
      await sleep(10);
      const second = await t.http.post(`/v1/admin/games/${g.gameId}/api-keys/${g.keyId}/revoke`).set(asAdmin);
      expect(second.status).toBe(200);
      expect(second.body.revokedAt).toBe(first.body.revokedAt);
      const r = await t.http.get('/v1/whoami').set(bearer(g.key));
      expect(r.status).toBe(401);
    });

    it('apiKeyCount counts keys that are not revoked', async () => {
      const g = await newGame(t, 'counted');
      await t.http.post(`/v1/admin/games/${g.gameId}/api-keys`).set(asAdmin);
      await t.http.post(`/v1/admin/games/${g.gameId}/api-keys/${g.keyId}/revoke`).set(asAdmin);
      const r = await t.http.get(`/v1/admin/games/${g.gameId}`).set(asAdmin);
      expect(r.body.apiKeyCount).toBe(1);
    });

    it('revoking through another game, or an unknown key, is 404 and leaves the key working', async () => {
      const a = await newGame(t, 'a');
      const b = await newGame(t, 'b');
      const cross = await t.http.post(`/v1/admin/games/${b.gameId}/api-keys/${a.keyId}/revoke`).set(asAdmin);
      expect(cross.status).toBe(404);
      expect(cross.body.code).toBe('not_found');
      expect((await t.http.get('/v1/whoami').set(bearer(a.key))).status).toBe(200);
      for (const keyId of [randomUUID(), 'nope']) {
        expect((await t.http.post(`/v1/admin/games/${a.gameId}/api-keys/${keyId}/revoke`).set(asAdmin)).status).toBe(404);
      }
    });

    it('minting or listing keys of an unknown game is 404', async () => {
      expect((await t.http.post(`/v1/admin/games/${randomUUID()}/api-keys`).set(asAdmin)).status).toBe(404);
      expect((await t.http.get(`/v1/admin/games/${randomUUID()}/api-keys`).set(asAdmin)).status).toBe(404);
    });

    it('a game may hold several keys; each authenticates to the same game', async () => {
      const g = await newGame(t, 'multi');
      const k2 = await t.http.post(`/v1/admin/games/${g.gameId}/api-keys`).set(asAdmin);
      const a = await t.http.get('/v1/whoami').set(bearer(g.key));
      const b = await t.http.get('/v1/whoami').set(bearer(k2.body.key));
      expect(a.body.gameId).toBe(g.gameId);
      expect(b.body.gameId).toBe(g.gameId);
      expect(b.body.keyId).toBe(k2.body.id);
    });
  });
});
