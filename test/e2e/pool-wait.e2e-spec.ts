import { Client } from 'pg';
import { DB_CONNECT_TIMEOUT_MS } from '../../src/db/data-source';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * A burst larger than the pool queues for a connection instead of failing: only a database that
 * cannot be reached answers 503 fast. Here every pooled connection is held longer than the connect
 * timeout by a lock the test holds, and the requests queued behind them still succeed.
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
});
