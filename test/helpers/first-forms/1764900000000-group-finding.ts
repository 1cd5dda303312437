import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Groups players can find, fill and hand over (EXTENSIONS X5, X6): a group's tags and member cap,
 * and its owner. The owner is kept by internal id (what the ownership rules compare, whatever
 * external ids the user has) and by the external id the answers show.
 */
export class GroupFinding1764900000000 implements MigrationInterface {
  name = 'GroupFinding1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE groups
        ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
        ADD COLUMN max_members integer CHECK (max_members BETWEEN 1 AND 100000),
        ADD COLUMN owner_user_id uuid,
        ADD COLUMN owner_external_id text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE groups DROP COLUMN owner_external_id, DROP COLUMN owner_user_id, DROP COLUMN max_members, DROP COLUMN tags');
  }
}
