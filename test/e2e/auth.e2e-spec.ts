import { ApiKeyCache } from '../../src/games/api-key-cache';
import { ADMIN_TOKEN, asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/** SPEC §5: API keys on game routes, the admin token on admin routes, never interchangeable. */
describe('authentication', () => {
  let t: TestApp;
  let game: { gameId: string; key: string; keyId: string };
  beforeAll(async () => {
    t = await startTestApp();
    game = await newGame(t);
  });
  afterAll(() => t.close());

  describe('game routes: 401 invalid_api_key', () => {
    const prefix = () => game.key.slice(0, game.key.indexOf('.'));
    it('accepts a valid key and resolves it to its game', async () => {
      const r = await t.http.get('/v1/whoami').set(bearer(game.key));
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        gameId: game.gameId,
        gameName: 'test game',
        keyId: game.keyId,
        keyPrefix: prefix(),
        scopes: ['read', 'write'],
        expiresAt: null,
      });
    });

    it.each([
      ['no Authorization header', undefined],
      ['an empty bearer', 'Bearer '],
      ['the Basic scheme', () => `Basic ${game.key}`],
      ['a prefix without secret', () => `Bearer ${prefix()}`],
      ['an unknown prefix', () => `Bearer jk_0123456789abcdef.${game.key.split('.')[1]}`],
      ['a wrong secret', () => `Bearer ${prefix()}.${Buffer.alloc(32, 7).toString('base64url')}`],
      ['the admin token', `Bearer ${ADMIN_TOKEN}`],
      ['garbage', 'Bearer %%%'],
    ])('rejects %s', async (_, header) => {
      const req = t.http.get('/v1/whoami');
      const value = typeof header === 'function' ? header() : header;
      if (value !== undefined) req.set('authorization', value);
      const r = await req;
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ code: 'invalid_api_key', status: 401 });
    });
  });

  describe('admin routes: 401 invalid_admin_token', () => {
    it.each([
      ['no token', {}],
      ['a wrong token', bearer('jadm_wrongwrongwrongwrong')],
      ['a game API key', () => bearer(game.key)],
    ])('rejects %s', async (_, headers) => {
      const h = typeof headers === 'function' ? headers() : headers;
      for (const path of ['/v1/admin/games', `/v1/admin/games/${game.gameId}`]) {
        const r = await t.http.get(path).set(h);
        expect(r.status).toBe(401);
        expect(r.body).toMatchObject({ code: 'invalid_admin_token', status: 401 });
      }
    });

    it('with no SVC_ADMIN_TOKEN configured every admin route is 401 and says admin endpoints are disabled', async () => {
      const off = await startTestApp({ SVC_ADMIN_TOKEN: '' }, t.db);
      try {
        const r = await off.http.get('/v1/admin/games').set(asAdmin);
        expect(r.status).toBe(401);
        expect(r.body.code).toBe('invalid_admin_token');
        expect(r.body.message).toMatch(/admin endpoints are disabled/);
      } finally {
        await off.close();
      }
    });
  });

  describe('revocation', () => {
    it('is effective at once on this instance and on another instance of the same database', async () => {
      const other = await startTestApp({}, t.db);
      try {
        const g = await newGame(t, 'revocable');
        // Both instances have the key cached now.
        expect((await t.http.get('/v1/whoami').set(bearer(g.key))).status).toBe(200);
        expect((await other.http.get('/v1/whoami').set(bearer(g.key))).status).toBe(200);
        const revoked = await other.http.post(`/v1/admin/games/${g.gameId}/api-keys/${g.keyId}/revoke`).set(asAdmin);
        expect(revoked.status).toBe(200);
        expect((await other.http.get('/v1/whoami').set(bearer(g.key))).status).toBe(401);
        // The first instance hears of it through Postgres NOTIFY.
        let status = 200;
        for (let i = 0; i < 50 && status === 200; i++) {
          status = (await t.http.get('/v1/whoami').set(bearer(g.key))).status;
          if (status === 200) await new Promise((r) => setTimeout(r, 20));
        }
        expect(status).toBe(401);
      } finally {
        await other.close();
      }
    });

    it('the hot path makes no database round trip for a cached key', async () => {
      const g = await newGame(t, 'cached');
      expect((await t.http.get('/v1/whoami').set(bearer(g.key))).status).toBe(200);
      const cache = t.app.get(ApiKeyCache);
      const prefix = g.key.slice(0, g.key.indexOf('.'));
      // Delete the row behind the cache's back: a cached key still resolves without the database,
      // synchronously (no promise on the hot path).
      await t.db.query('DELETE FROM api_keys WHERE prefix = $1', [prefix]);
      const cached = cache.resolve(prefix);
      expect(cached).not.toBeInstanceOf(Promise);
      expect(cached).toMatchObject({ keyId: g.keyId, revoked: false });
      cache.evict(prefix);
      const reloaded = cache.resolve(prefix);
      expect(reloaded).toBeInstanceOf(Promise);
      await expect(reloaded).resolves.toBeNull();
    });
  });
});
