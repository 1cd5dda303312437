import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/** SPEC §8 Rate limits with RATE_LIMIT_PER_MINUTE=60, RATE_LIMIT_BURST=5 (source bucket 1200/min, 100). */
describe('rate limiter', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '60', RATE_LIMIT_BURST: '5', TRUST_PROXY: 'true' });
  });
  afterAll(() => t.close());

  /** Distinct forwarded sources keep the per-source bucket out of the way of key-bucket tests. */
  let n = 0;
  const source = () => `203.0.113.${++n}`;

  it('a key gets its burst, then 429 rate_limit_exceeded with an integer Retry-After >= 1', async () => {
    const { key } = await newGame(t);
    const from = source();
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 8; i++) {
      const r = await t.http.get('/v1/whoami').set(bearer(key)).set('x-forwarded-for', from);
      statuses.push(r.status);
      if (r.status === 429) {
        limited = r;
        break;
      }
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(limited?.body).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
    expect(limited?.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(limited?.headers['x-request-id']).toBeDefined();
  });

  it('buckets are per key: another key of the same game is unaffected', async () => {
    const g = await newGame(t);
    const k2 = await t.http.post(`/v1/admin/games/${g.gameId}/api-keys`).set(asAdmin);
    const from = source();
    for (let i = 0; i < 6; i++) await t.http.get('/v1/whoami').set(bearer(g.key)).set('x-forwarded-for', from);
    expect((await t.http.get('/v1/whoami').set(bearer(g.key)).set('x-forwarded-for', from)).status).toBe(429);
    expect((await t.http.get('/v1/whoami').set(bearer(k2.body.key)).set('x-forwarded-for', from)).status).toBe(200);
  });

  it('runs before authentication: an unknown but well-formed key drains its own bucket (DECISIONS §16)', async () => {
    const fake = `jk_00000000deadbeef.${Buffer.alloc(32, 1).toString('base64url')}`;
    const from = source();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.http.get('/v1/whoami').set(bearer(fake)).set('x-forwarded-for', from)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  /**
   * The source-bucket tests run on an instance with RATE_LIMIT_PER_MINUTE=1: its source bucket holds
   * 100 and refills one token every 3 s, so a loaded machine cannot refill it mid-test.
   */
  let slow: TestApp;
  beforeAll(async () => {
    slow = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BURST: '5', TRUST_PROXY: 'true' }, t.db);
  });
  afterAll(() => slow.close());

  const burst = async (count: number, forwardedFor: string) => {
    const rs = await Promise.all(
      Array.from({ length: count }, () => slow.http.get('/v1/admin/games?limit=1').set(asAdmin).set('x-forwarded-for', forwardedFor)),
    );
    return { ok: rs.filter((r) => r.status === 200).length, limited: rs.filter((r) => r.status === 429).length };
  };

  it('the source bucket (20x the key bucket) limits requests without a key, admin routes included', async () => {
    const from = source();
    const { ok, limited } = await burst(110, from);
    expect(ok).toBeGreaterThanOrEqual(100);
    expect(ok).toBeLessThanOrEqual(102);
    expect(limited).toBe(110 - ok);
    // Another source is unaffected.
    expect((await slow.http.get('/v1/admin/games?limit=1').set(asAdmin).set('x-forwarded-for', source())).status).toBe(200);
  });

  it('with TRUST_PROXY the rightmost x-forwarded-for hop is the source', async () => {
    const from = source();
    const { limited } = await burst(110, `1.1.1.1, ${from}`);
    expect(limited).toBeGreaterThan(0);
    const r = await slow.http.get('/v1/admin/games?limit=1').set(asAdmin).set('x-forwarded-for', `9.9.9.9, ${from}`);
    expect(r.status).toBe(429);
    const elsewhere = await slow.http.get('/v1/admin/games?limit=1').set(asAdmin).set('x-forwarded-for', `${from}, ${source()}`);
    expect(elsewhere.status).toBe(200);
  });

  it('every /v1 request counts, unknown routes included', async () => {
    const { key } = await newGame(t);
    const from = source();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.http.get('/v1/no-such-route').set(bearer(key)).set('x-forwarded-for', from)).status);
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429]);
    expect((await t.http.get('/v1/whoami').set(bearer(key)).set('x-forwarded-for', from)).status).toBe(429);
  });

  it('routes outside /v1 are not limited', async () => {
    const from = source();
    for (let i = 0; i < 120; i++) {
      const r = await t.http.get('/').set('x-forwarded-for', from);
      expect(r.status).toBe(200);
    }
  });

  it('RATE_LIMIT_PER_MINUTE=0 turns the limiter off', async () => {
    const off = await startTestApp({ RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_BURST: '5' }, t.db);
    try {
      const { key } = await newGame(off);
      for (let i = 0; i < 20; i++) expect((await off.http.get('/v1/whoami').set(bearer(key))).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});
