import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { removeExpiredDeliveries } from '../../src/webhooks/webhook-retention';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { insertDeliveries } from '../helpers/webhook-deliveries';

/**
 * The delivery log's attempts have no foreign key to their delivery (migration
 * WebhookAttemptsParent): logging an attempt must not read webhook_deliveries, whose cached
 * check plan turned into a sequential scan per row as the table grew, and whatever removes
 * deliveries must still remove their attempts.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ EVENT_RETENTION_DAYS: '2', WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => t.close());

async function endpoint(): Promise<{ id: string; gameId: string; auth: Record<string, string> }> {
  const g = await authedGame(t);
  const r = await t.http.post('/v1/webhooks').set(g.auth).send({ url: 'https://example.com/attempts' });
  expect(r.status).toBe(201);
  return { id: r.body.id, gameId: g.gameId, auth: g.auth };
}

const attemptsOf = async (ids: string[]) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id = ANY ($1::uuid[])`, [ids]))[0].n;

it('deleting an endpoint removes its deliveries’ attempts and no other', async () => {
  const gone = await endpoint();
  const kept = await endpoint();
  const goneIds = await insertDeliveries(t, gone.id, 30);
  const keptIds = await insertDeliveries(t, kept.id, 5);
  expect(await attemptsOf(goneIds)).toBe(60);

  expect((await t.http.delete(`/v1/webhooks/${gone.id}`).set(gone.auth)).status).toBe(204);

  expect(await attemptsOf(goneIds)).toBe(0);
  expect(await attemptsOf(keptIds)).toBe(10);
});

it('the retention sweep removes the attempts of the deliveries it removes', async () => {
  const e = await endpoint();
  const old = await insertDeliveries(t, e.id, 25, 3);
  const recent = await insertDeliveries(t, e.id, 3, 1);
  const r = await removeExpiredDeliveries(t.app.get(DataSource).manager, 2, 10);
  expect(r.removed).toBeGreaterThanOrEqual(25);
  expect(await attemptsOf(old)).toBe(0);
  expect(await attemptsOf(recent)).toBe(6);
});

it("a game's cascade to its endpoints and deliveries removes their attempts", async () => {
  const e = await endpoint();
  const ids = await insertDeliveries(t, e.id, 12);
  await t.db.query('DELETE FROM games WHERE id = $1', [e.gameId]);
  expect(await attemptsOf(ids)).toBe(0);
});

it('logging attempts reads nothing of webhook_deliveries, however much it grew since the connection first logged one', async () => {
  const e = await endpoint();
  const c = new Client({ connectionString: t.db.url });
  await c.connect();
  try {
    const log = async (ids: string[], number: number) =>
      c.query(
        `INSERT INTO webhook_delivery_attempts (delivery_id, number, attempted_at, status_code, error, duration_ms)
         SELECT id, $2, now(), 200, NULL, 3 FROM unnest($1::uuid[]) AS id`,
        [ids, number],
      );
    // Only this connection's scans of the work: the table's totals also take other backends' counts
    // whenever those reach the statistics, which can be a second or more late. The flush first
    // empties what this backend still holds of its earlier statements.
    const seqScansOf = async (work: () => Promise<unknown>) => {
      await c.query('SELECT pg_stat_force_next_flush()');
      await c.query('BEGIN');
      try {
        await work();
        const { rows } = await c.query<{ n: string }>(`SELECT seq_scan AS n FROM pg_stat_xact_user_tables WHERE relname = 'webhook_deliveries'`);
        return Number(rows[0].n);
      } finally {
        await c.query('COMMIT');
      }
    };
    // While the table is small (and analyzed so, as autovacuum does a young table), this connection
    // logs enough attempts for any check it runs to be planned once and cached: a sequential scan.
    const few = await insertDeliveries(t, e.id, 20);
    await c.query('ANALYZE webhook_deliveries');
    for (let n = 3; n < 13; n++) await log(few, n);
    // The table grows, with no ANALYZE in between; then the same connection logs 50 attempts.
    const many = await insertDeliveries(t, e.id, 5000);
    expect(await seqScansOf(() => log(many.slice(0, 50), 3))).toBe(0);
    expect(await attemptsOf(many.slice(0, 50))).toBe(150);
  } finally {
    await c.end();
  }
});
