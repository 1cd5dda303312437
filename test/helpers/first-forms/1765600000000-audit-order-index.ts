import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops the service-wide order of the audit log. Only two operator reads used it (the 24-hour count
 * of the stats and the newest entries of every game), yet every audited write, and every row a
 * player's erasure rewrites, paid one more index entry for it. Those reads now walk each game's
 * range of audit_entries_game_order (src/admin/admin.repository.ts); game_id is never null.
 */
export class AuditOrderIndex1765600000000 implements MigrationInterface {
  name = 'AuditOrderIndex1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX audit_entries_order`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX audit_entries_order ON audit_entries (created_at DESC, id DESC)`);
  }
}
