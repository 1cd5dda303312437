import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropIndex, restoreIndex } from './online';

/**
 * Drops the service-wide order of the audit log. Only two operator reads used it (the 24-hour count
 * of the stats and the newest entries of every game), yet every audited write, and every row a
 * player's erasure rewrites, paid one more index entry for it. Those reads now walk each game's
 * range of audit_entries_game_order (src/admin/admin.repository.ts); game_id is never null.
 *
 * Online (docs/operations.md, Schema changes): dropped CONCURRENTLY, outside a transaction
 * (`transaction = false`): a plain DROP INDEX would make every audited write queue behind it
 * while it waits for the transactions reading the table. The builds before it keep working
 * without the index (their two reads scan instead), so every release may run after it.
 */
export class AuditOrderIndex1765600000000 implements MigrationInterface {
  name = 'AuditOrderIndex1765600000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await dropIndex(q, 'audit_entries_order');
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreIndex(q, { name: 'audit_entries_order', table: 'audit_entries', definition: '(created_at DESC, id DESC)' });
  }
}
