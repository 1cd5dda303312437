import type { QueryRunner } from 'typeorm';
import { lockedStatement } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * A webhook claim's lease in a column of its own, in no index, and room on each page for the
 * claim's new row version (docs/design/write-path.md, the HOT lease). Today a claim writes its
 * lease into next_attempt_at, which webhook_deliveries_due indexes: every claim is a non-HOT update
 * with new index entries. Once claims write only `lease_until`, their updates can stay on the
 * page (HOT), which the fillfactor of 70 leaves room for on pages written from then on.
 *
 * Expand, the first of two steps: release 1.1.0 writes the lease to both columns and reads both
 * (a row is due when next_attempt_at has come and no lease runs), so 1.0.0, which leases through
 * next_attempt_at alone, runs beside it and after it with every attempt still sent by one
 * instance. The release after 1.1.0 writes only `lease_until`: 1.1.0 respects that lease, 1.0.0
 * would not, so that switch waits for it. Both statements are catalog changes taken with a short
 * lock timeout and tried again; outside a transaction, each can run again.
 */
export class DeliveryLease1767000000000 implements ReleasedMigration {
  name = 'DeliveryLease1767000000000';
  readonly release = expandIn('1.1.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedStatement(q, 'ALTER TABLE webhook_deliveries ADD COLUMN IF NOT EXISTS lease_until timestamptz(3)');
    await lockedStatement(q, 'ALTER TABLE webhook_deliveries SET (fillfactor = 70)');
  }

  async down(q: QueryRunner): Promise<void> {
    await lockedStatement(q, 'ALTER TABLE webhook_deliveries RESET (fillfactor)');
    await lockedStatement(q, 'ALTER TABLE webhook_deliveries DROP COLUMN IF EXISTS lease_until');
  }
}
