import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { SweeperService } from '../../src/sweeper/sweeper.service';
import { removeExpiredDeliveries } from '../../src/webhooks/webhook-retention';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { insertDeliveries } from '../helpers/webhook-deliveries';

/**
 * Retention of the delivery log (EVENT_RETENTION_DAYS, here 2): the sweep removes deliveries and
 * their attempts as old as the events they delivered, in batches that wait for no lock.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ EVENT_RETENTION_DAYS: '2', WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => t.close());

async function endpoint(): Promise<string> {
  const g = await authedGame(t);
  const r = await t.http.post('/v1/webhooks').set(g.auth).send({ url: 'https://example.com/retained' });
  expect(r.status).toBe(201);
  return r.body.id;
}

const count = async (endpointId: string) =>
  (
    await t.db.query<{ deliveries: number; attempts: number }>(
      `SELECT count(DISTINCT d.id)::int AS deliveries, count(a.number)::int AS attempts
       FROM webhook_deliveries d LEFT JOIN webhook_delivery_attempts a ON a.delivery_id = d.id WHERE d.endpoint_id = $1`,
      [endpointId],
    )
  )[0];

it('removes the deliveries older than the window with their attempts, in batches, whatever their status', async () => {
  const a = await endpoint();
  const b = await endpoint();
  await insertDeliveries(t, a, 1500, 3);
  await insertDeliveries(t, b, 1000, 2.5);
  await insertDeliveries(t, a, 4, 1);
  const result = await removeExpiredDeliveries(t.app.get(DataSource).manager, 2, 1000);
  expect(result).toEqual({ removed: 2500, batches: 3 });
  expect(await count(a)).toEqual({ deliveries: 4, attempts: 8 });
  expect(await count(b)).toEqual({ deliveries: 0, attempts: 0 });
});

it('the hourly sweep applies EVENT_RETENTION_DAYS to the delivery log', async () => {
  const e = await endpoint();
  await insertDeliveries(t, e, 9, 2.1);
  const [kept] = await insertDeliveries(t, e, 1, 1.9);
  const r = await t.app.get(SweeperService).sweep();
  expect(r).toMatchObject({ swept: true });
  expect(r.webhookDeliveriesRemoved).toBeGreaterThanOrEqual(9);
  expect(await count(e)).toEqual({ deliveries: 1, attempts: 2 });
  expect((await t.db.query<{ id: string }>(`SELECT id FROM webhook_deliveries WHERE endpoint_id = $1`, [e]))[0].id).toBe(kept);
});

it('a delivery held by another transaction is skipped, not waited for, and goes at the next sweep', async () => {
  const e = await endpoint();
  const [locked] = await insertDeliveries(t, e, 6, 3);
  const c = new Client({ connectionString: t.db.url });
  c.on('error', () => undefined);
  await c.connect();
  try {
    await c.query('BEGIN');
    await c.query('SELECT 1 FROM webhook_deliveries WHERE id = $1 FOR UPDATE', [locked]);
    const started = Date.now();
    await t.app.get(SweeperService).sweep();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await count(e)).toEqual({ deliveries: 1, attempts: 2 });
    await c.query('COMMIT');
    await t.app.get(SweeperService).sweep();
    expect(await count(e)).toEqual({ deliveries: 0, attempts: 0 });
  } finally {
    await c.end();
  }
});
