import type { QueryRunner } from 'typeorm';
import { backfillInBatches, createIndexConcurrently, dropIndex, lockedStatement, restoreIndex, setNotNull, type IndexDefinition } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * The members holding a key in member-list order (EXTENSIONS X8, `GET /v1/groups/:id/members?permission=`)
 * as a merge of ordered index ranges instead of a walk of the whole group testing every member.
 * A grant row carries its member's place in that order, (joined_at, member id), which never
 * changes: a member who rejoins keeps the row and its joinedAt (SPEC §2). So:
 * - `member_roles.member_joined_at`: a role's holders are a range of `member_roles_role_order`,
 *   (role_id, member_joined_at DESC, member_id DESC), newest first. It replaces `member_roles_role`
 *   (role_id), which is its prefix, so an assignment keeps the same number of index entries.
 * - `member_permission_overrides.group_id` and `.member_joined_at`: the members an override allows
 *   a key are a range of `member_permission_overrides_allowing`, (group_id, permission,
 *   member_joined_at DESC, member_id DESC) WHERE allowed.
 *
 * Online (docs/operations.md, Schema changes), an expand in 1.1.0: release 1.0.0 may run beside
 * it and after it. It inserts grants without the new columns, so:
 * 1. the columns are added nullable: a catalog change under a short lock timeout;
 * 2. a trigger on each table fills them from the member row, before the row is checked, when the
 *    writer did not send them (this release sends them: the trigger's WHEN then tests a column);
 * 3. the rows written before are filled in batches of member id, each its own short transaction;
 * 4. NOT NULL by a CHECK added NOT VALID and validated, then SET NOT NULL without a scan;
 * 5. the two indexes are built concurrently, then the old role index is dropped concurrently
 *    (1.0.0 never names it: its plans take the new one's prefix).
 * Each step can run again. A later contract migration, in a release after 1.1.0, drops the
 * triggers and their functions; it is not written yet.
 */
export class GrantHolderOrder1766800000000 implements ReleasedMigration {
  name = 'GrantHolderOrder1766800000000';
  readonly release = expandIn('1.1.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedStatement(q, 'ALTER TABLE member_roles ADD COLUMN IF NOT EXISTS member_joined_at timestamptz(3)');
    await lockedStatement(
      q,
      'ALTER TABLE member_permission_overrides ADD COLUMN IF NOT EXISTS group_id uuid, ADD COLUMN IF NOT EXISTS member_joined_at timestamptz(3)',
    );
    await q.query(`
      CREATE OR REPLACE FUNCTION member_roles_holder_order() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.member_joined_at IS NULL THEN
          NEW.member_joined_at := (SELECT m.joined_at FROM members m WHERE m.id = NEW.member_id);
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION member_overrides_holder_order() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.group_id IS NULL OR NEW.member_joined_at IS NULL THEN
          SELECT m.group_id, m.joined_at INTO NEW.group_id, NEW.member_joined_at FROM members m WHERE m.id = NEW.member_id;
        END IF;
        RETURN NEW;
      END $$`);
    // Each lock waits for the inserts in flight, which commit with or without the columns: every
    // row the backfill starts after exists by then, and every later one goes through the trigger.
    // Its WHEN spares this release's inserts, which send the columns, the call of the function.
    await lockedStatement(
      q,
      'CREATE OR REPLACE TRIGGER member_roles_holder_order BEFORE INSERT ON member_roles FOR EACH ROW WHEN (NEW.member_joined_at IS NULL) EXECUTE FUNCTION member_roles_holder_order()',
    );
    await lockedStatement(
      q,
      'CREATE OR REPLACE TRIGGER member_overrides_holder_order BEFORE INSERT ON member_permission_overrides FOR EACH ROW WHEN (NEW.group_id IS NULL OR NEW.member_joined_at IS NULL) EXECUTE FUNCTION member_overrides_holder_order()',
    );
    for (const table of ['member_roles', 'member_permission_overrides']) {
      const sets = table === 'member_roles' ? 'member_joined_at = m.joined_at' : 'group_id = m.group_id, member_joined_at = m.joined_at';
      // A batch is the rows of `$2` member ids or so: the member last named has all its rows in it.
      await backfillInBatches(q, {
        batch: `
          WITH batch AS (SELECT member_id FROM ${table} WHERE $1::uuid IS NULL OR member_id > $1::uuid ORDER BY member_id LIMIT $2),
               filled AS (UPDATE ${table} t SET ${sets} FROM members m
                          WHERE t.member_id IN (SELECT member_id FROM batch) AND t.member_joined_at IS NULL AND m.id = t.member_id RETURNING 1)
          SELECT (SELECT member_id FROM batch ORDER BY member_id DESC LIMIT 1) AS last, (SELECT count(*) FROM filled) AS filled`,
      });
    }
    await setNotNull(q, 'member_roles', 'member_joined_at');
    await setNotNull(q, 'member_permission_overrides', 'group_id');
    await setNotNull(q, 'member_permission_overrides', 'member_joined_at');
    await createIndexConcurrently(q, ROLE_HOLDERS);
    await createIndexConcurrently(q, OVERRIDE_HOLDERS);
    await dropIndex(q, OLD_ROLE_INDEX.name);
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreIndex(q, OLD_ROLE_INDEX);
    await dropIndex(q, OVERRIDE_HOLDERS.name);
    await dropIndex(q, ROLE_HOLDERS.name);
    await lockedStatement(q, 'DROP TRIGGER IF EXISTS member_overrides_holder_order ON member_permission_overrides');
    await lockedStatement(q, 'DROP TRIGGER IF EXISTS member_roles_holder_order ON member_roles');
    await lockedStatement(q, 'DROP FUNCTION IF EXISTS member_overrides_holder_order()');
    await lockedStatement(q, 'DROP FUNCTION IF EXISTS member_roles_holder_order()');
    await lockedStatement(q, 'ALTER TABLE member_permission_overrides DROP COLUMN IF EXISTS member_joined_at, DROP COLUMN IF EXISTS group_id');
    await lockedStatement(q, 'ALTER TABLE member_roles DROP COLUMN IF EXISTS member_joined_at');
  }
}

const ROLE_HOLDERS: IndexDefinition = {
  name: 'member_roles_role_order',
  table: 'member_roles',
  definition: '(role_id, member_joined_at DESC, member_id DESC)',
};

/** Only the overrides that allow: one that denies is found by its member, on the primary key. */
const OVERRIDE_HOLDERS: IndexDefinition = {
  name: 'member_permission_overrides_allowing',
  table: 'member_permission_overrides',
  definition: '(group_id, permission, member_joined_at DESC, member_id DESC) WHERE allowed',
};

const OLD_ROLE_INDEX: IndexDefinition = { name: 'member_roles_role', table: 'member_roles', definition: '(role_id)' };
