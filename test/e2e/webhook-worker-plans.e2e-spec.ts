import { DataSource } from 'typeorm';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { PER_ENDPOINT_IN_FLIGHT, WORKER_BATCH } from '../../src/webhooks/delivery-window';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { insertDeliveries } from '../helpers/webhook-deliveries';

/**
 * The worker's claim and result write are planned on every call. Prepared once per connection,
 * Postgres kept the generic plan it made while webhook_deliveries was small (sequential scans),
 * and every claim and result write then read the whole table: 6 to 25 ms a call within minutes
 * of load, growing with the table. The repository runs here on a pool of one connection, so every
 * call reuses the same session, as a busy worker's calls do.
 */
let t: TestApp;
let single: DataSource;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  single = await new DataSource({ type: 'postgres', url: t.db.url, extra: { max: 1 } }).initialize();
});
afterAll(async () => {
  await single?.destroy();
  await t.close();
});

const room = { endpointIds: [], inFlight: [], share: PER_ENDPOINT_IN_FLIGHT, fairFree: WORKER_BATCH, borrowFree: WORKER_BATCH };

/** Sequential scans of webhook_deliveries so far, with the one-connection session's counts included. */
const seqScans = async (): Promise<number> => {
  await single.query('SELECT pg_stat_force_next_flush()');
  const [row] = await single.query<{ n: string }[]>(`SELECT seq_scan AS n FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'`);
  return Number(row.n);
};

it('claims and result writes read webhook_deliveries by index however much it grew since the session first ran them', async () => {
  const g = await authedGame(t);
  const r = await t.http.post('/v1/webhooks').set(g.auth).send({ url: 'https://example.com/plans' });
  expect(r.status).toBe(201);
  const repo = t.app.get(WebhooksRepository);
  const m = single.manager;
  const due = () => t.db.query(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now() - interval '1 s', lease_until = NULL WHERE endpoint_id = $1`, [r.body.id]);

  // While the table is small and analyzed so, the session claims and records often enough for a
  // prepared statement to settle on a generic plan.
  await t.db.query('ANALYZE webhook_deliveries');
  await insertDeliveries(t, r.body.id, 20);
  for (let i = 0; i < 8; i++) {
    await due();
    const claimed = await repo.claimDue(m, room);
    expect(claimed.length).toBeGreaterThan(0);
    await repo.recordResults(m, claimed.map((c) => ({ id: c.id, attempts: c.attempts, outcome: 'delivered', status: 204, error: null, retryInMs: null, durationMs: 3 })), 100);
  }

  // The table grows, with no ANALYZE in between; one claim and one result write follow.
  await insertDeliveries(t, r.body.id, 5000);
  await due();
  const before = await seqScans();
  const claimed = await repo.claimDue(m, room);
  expect(claimed).toHaveLength(WORKER_BATCH);
  await repo.recordResults(m, claimed.map((c) => ({ id: c.id, attempts: c.attempts, outcome: 'delivered', status: 204, error: null, retryInMs: null, durationMs: 3 })), 100);
  expect((await seqScans()) - before).toBe(0);
  const [{ delivered }] = await t.db.query<{ delivered: number }>(
    `SELECT count(*)::int AS delivered FROM webhook_deliveries WHERE id = ANY ($1::uuid[]) AND status = 'delivered'`,
    [claimed.map((c) => c.id)],
  );
  expect(delivered).toBe(WORKER_BATCH);
});
