import type { TestApp } from './test-app';

/**
 * `n` deliveries of an endpoint, `daysAgo` old, spread over the statuses, each with two attempts,
 * written straight to the tables (as the worker leaves them); their ids.
 */
export async function insertDeliveries(t: TestApp, endpointId: string, n: number, daysAgo = 0): Promise<string[]> {
  const rows = await t.db.query<{ id: string }>(
    `WITH d AS (
       INSERT INTO webhook_deliveries (id, endpoint_id, event_id, status, attempts, created_at)
       SELECT svc_uuidv7(), $1, lpad(to_hex(i), 24, '0'), (ARRAY['pending', 'delivered', 'failed'])[1 + i % 3], 2,
              now() - $3::float8 * interval '1 day'
       FROM generate_series(1, $2) AS i
       RETURNING id, created_at
     ), a AS (
       INSERT INTO webhook_delivery_attempts (delivery_id, number, attempted_at, status_code, error, duration_ms)
       SELECT d.id, k, d.created_at, 503, 'HTTP 503', 7 FROM d CROSS JOIN generate_series(1, 2) AS k
     )
     SELECT id FROM d`,
    [endpointId, n, daysAgo],
  );
  return rows.map((r) => r.id);
}

/** The event's delivery row for the endpoint, as a commit of release 1.8.0 wrote it: pending, no attempt yet. */
export async function rowAsCommitted(db: Pick<TestApp['db'], 'query'>, endpointId: string, eventId: string): Promise<void> {
  await db.query('INSERT INTO webhook_deliveries (id, endpoint_id, event_id) VALUES (svc_delivery_id($1, $2), $1, $2)', [endpointId, eventId]);
}
