import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';

/** Deliveries removed per statement (their attempts go with them, up to six each). */
export const DELIVERY_SWEEP_BATCH = 2000;

/**
 * Removes the deliveries older than the events' retention window (EVENT_RETENTION_DAYS), with
 * their attempts, one batch per statement outside any transaction. A delivery that old can no
 * longer be sent (its event is gone), whatever its status. Each endpoint and status is read on
 * webhook_deliveries_endpoint_log from its oldest row, so no index is kept for the sweep alone; rows
 * another transaction holds are skipped, not waited for: the next sweep takes them.
 */
export async function removeExpiredDeliveries(m: EntityManager, retentionDays: number, batch = DELIVERY_SWEEP_BATCH): Promise<{ removed: number; batches: number }> {
  let removed = 0;
  let batches = 0;
  for (;;) {
    const rows = await sqlRows(
      m,
      `DELETE FROM webhook_deliveries d USING (
         SELECT old.id FROM webhook_endpoints w
         CROSS JOIN unnest('{pending,delivered,failed}'::text[]) AS s(status)
         CROSS JOIN LATERAL (
           SELECT x.id FROM webhook_deliveries x
           WHERE x.endpoint_id = w.id AND x.status = s.status AND x.created_at < now() - make_interval(days => $1)
           ORDER BY x.created_at LIMIT $2 FOR UPDATE SKIP LOCKED
         ) old
         LIMIT $2
       ) expired
       WHERE d.id = expired.id RETURNING 1`,
      [retentionDays, batch],
    );
    batches++;
    removed += rows.length;
    if (rows.length < batch) return { removed, batches };
  }
}

/**
 * Forgets the secrets whose rotation grace period is over. They have stopped signing at that
 * moment already (the worker checks the expiry); this only keeps them from staying stored.
 */
export async function clearExpiredPreviousSecrets(m: EntityManager): Promise<number> {
  const rows = await sqlRows(
    m,
    `UPDATE webhook_endpoints SET previous_secret = NULL, previous_secret_expires_at = NULL
     WHERE previous_secret IS NOT NULL AND previous_secret_expires_at <= now() RETURNING 1`,
  );
  return rows.length;
}
