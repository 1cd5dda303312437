import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * One stuck client cannot hold the service for ever: a statement blocked longer than
 * DATABASE_STATEMENT_TIMEOUT_MS gives up and answers 503 (retry later), and a transaction of the
 * service left idle longer than DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS is ended by Postgres, its
 * locks freed.
 */

jest.setTimeout(60_000);

describe('database timeouts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ DATABASE_STATEMENT_TIMEOUT_MS: '700', DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '700' });
  });
  afterAll(() => t?.close());

  it('every pooled connection carries both settings, and JIT off (compiling a short read can take longer than running it)', async () => {
    const ds = t.app.get(DataSource);
    const [row] = await ds.query(
      `SELECT current_setting('statement_timeout') AS st, current_setting('idle_in_transaction_session_timeout') AS idle, current_setting('jit') AS jit`,
    );
    expect(row).toEqual({ st: '700ms', idle: '700ms', jit: 'off' });
  });

  it('a request blocked by a lock held elsewhere answers 503 with Retry-After after the statement timeout, and nothing is written', async () => {
    const { auth } = await authedGame(t);
    const g = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'locked', visibility: 'public' }).expect(201);
    const locker = new Client({ connectionString: t.db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM groups WHERE id = $1 FOR UPDATE', [g.body.id]);
      const t0 = Date.now();
      const r = await t.http.post(`/v1/groups/${g.body.id}/join`).set(auth).send({ userId: 'blocked' });
      const took = Date.now() - t0;
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(r.headers['retry-after']).toBe('2');
      expect(took).toBeGreaterThanOrEqual(600);
      expect(took).toBeLessThan(5_000);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    const members = await t.db.query(`SELECT 1 FROM members WHERE group_id = $1 AND external_user_id = 'blocked'`, [g.body.id]);
    expect(members).toHaveLength(0);
    await t.http.post(`/v1/groups/${g.body.id}/join`).set(auth).send({ userId: 'blocked' }).expect(201);
  });

  it('a transaction left idle past the timeout is ended by Postgres and its row lock freed', async () => {
    const ds = createDataSource({ url: t.db.url, poolMax: 1, idleInTransactionTimeoutMs: 500 });
    await ds.initialize();
    const runner = ds.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction();
      await runner.query(`SELECT 1 FROM games LIMIT 1 FOR UPDATE`);
      await new Promise((r) => setTimeout(r, 1_200));
      await expect(runner.query('SELECT 1')).rejects.toThrow();
      const other = new Client({ connectionString: t.db.url, statement_timeout: 2_000 });
      await other.connect();
      try {
        // Would wait on the lock for ever (here: fail at 2 s) had the idle transaction survived.
        await expect(other.query('SELECT 1 FROM games LIMIT 1 FOR UPDATE NOWAIT')).resolves.toBeDefined();
      } finally {
        await other.end();
      }
    } finally {
      await runner.release().catch(() => undefined);
      await ds.destroy().catch(() => undefined);
    }
  });
});

