import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';

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
