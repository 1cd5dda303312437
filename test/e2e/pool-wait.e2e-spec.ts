import { Client } from 'pg';
import { DB_CONNECT_TIMEOUT_MS, DB_POOL_WAIT_MS } from '../../src/db/data-source';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * A burst larger than the pool queues for a connection instead of failing: only a database that
 * cannot be reached answers 503 fast. Here every pooled connection is held longer than the connect
 * timeout by a lock the test holds, and the requests queued behind them still succeed. A pool
 * held longer than DB_POOL_WAIT_MS makes the waiting requests answer 503, never hang.
 */

jest.setTimeout(60_000);

describe('pool wait under a burst', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ DATABASE_POOL_MAX: '2' });
  });
  afterAll(() => t?.close());

  it('requests waiting longer than the connect timeout for a busy pool are served, not 503', async () => {
    const { auth } = await authedGame(t);
    const locker = new Client({ connectionString: t.db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE groups IN EXCLUSIVE MODE');
      const burst = Array.from({ length: 8 }, (_, i) =>
        t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: `burst ${i}` }).then((r) => r.status),
      );
      // Both pooled connections now wait on the lock; the other requests wait for a connection.
      await new Promise((r) => setTimeout(r, DB_CONNECT_TIMEOUT_MS + 1_000));
      await locker.query('COMMIT');
      expect(await Promise.all(burst)).toEqual(Array(8).fill(201));
    } finally {
      await locker.end();
    }
  });

  it('requests waiting longer than the pool wait for a connection held by slow queries answer 503 with Retry-After, then service resumes', async () => {
    const { auth } = await authedGame(t);
    const locker = new Client({ connectionString: t.db.url });
    await locker.connect();
    let held: Promise<number[]> | undefined;
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE groups IN EXCLUSIVE MODE');
      // Two creates take both pooled connections and wait on the lock (the statement timeout is 30 s).
      held = Promise.all([0, 1].map((i) => t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: `held ${i}` }).then((r) => r.status)));
      await new Promise((r) => setTimeout(r, 500));
      const t0 = Date.now();
      const waiting = await t.http.get('/v1/groups').set(auth);
      const took = Date.now() - t0;
      expect(waiting.status).toBe(503);
      expect(waiting.body).toMatchObject({ code: 'service_unavailable', status: 503, requestId: expect.any(String) });
      expect(waiting.headers['retry-after']).toBeDefined();
      expect(took).toBeGreaterThanOrEqual(DB_POOL_WAIT_MS - 500);
      expect(took).toBeLessThan(DB_POOL_WAIT_MS + 5_000);
    } finally {
      await locker.query('COMMIT');
      await locker.end();
    }
    expect(await held).toEqual([201, 201]);
    await t.http.get('/v1/groups').set(auth).expect(200);
  });
});
