import type { MigrationInterface, QueryRunner } from 'typeorm';
import { hasConstraint, lockedStatement } from './online';

/**
 * Groups players can find, fill and hand over (EXTENSIONS X5, X6): a group's tags and member cap,
 * and its owner. The owner is kept by internal id (what the ownership rules compare, whatever
 * external ids the user has) and by the external id the answers show.
 *
 * Online (docs/operations.md, Schema changes): the columns are a catalog change (a constant
 * default, nullable ones), made with a short lock_timeout and tried again when a long transaction
 * holds groups. The cap's CHECK is added apart, NOT VALID, then validated: written with its column
 * it would be checked against every group under the lock that blocks their writes. Outside a
 * transaction (`transaction = false`), each step can run again. The constraint is the one the first
 * form made (an inline CHECK named groups_max_members_check). The builds before it never name the
 * columns: every release may run after it.
 */
export class GroupFinding1764900000000 implements MigrationInterface {
  name = 'GroupFinding1764900000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedStatement(
      q,
      `ALTER TABLE groups
         ADD COLUMN IF NOT EXISTS tags text[] NOT NULL DEFAULT '{}',
         ADD COLUMN IF NOT EXISTS max_members integer,
         ADD COLUMN IF NOT EXISTS owner_user_id uuid,
         ADD COLUMN IF NOT EXISTS owner_external_id text`,
    );
    if (!(await hasConstraint(q, 'groups', 'groups_max_members_check'))) {
      await lockedStatement(q, 'ALTER TABLE groups ADD CONSTRAINT groups_max_members_check CHECK (max_members BETWEEN 1 AND 100000) NOT VALID');
    }
    await q.query('ALTER TABLE groups VALIDATE CONSTRAINT groups_max_members_check');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE groups DROP COLUMN owner_external_id, DROP COLUMN owner_user_id, DROP COLUMN max_members, DROP COLUMN tags');
  }
}
