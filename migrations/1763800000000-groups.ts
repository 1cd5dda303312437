import type { MigrationInterface, QueryRunner } from 'typeorm';
import { lockedTransaction, relationExists } from './online';

/**
 * Groups, members and invitations (SPEC §2-3), with the indexes of every list order.
 *
 * Online (docs/operations.md, Schema changes): the new tables' foreign keys take a lock that
 * blocks the writes of games and users, and audit_entries gains one (whose check reads a table
 * that no build before this one writes).
 * So it runs in a transaction of its own (`transaction = false`, lockedTransaction) where each
 * statement waits a few seconds at most for its lock; behind a long transaction it rolls back,
 * lets the writes queued behind it through and tries again. Its statements commit together:
 * when invitations exists, an earlier run committed them all. The builds before it write no audit
 * entry and know none of these tables: every release may run after it.
 */
export class Groups1763800000000 implements MigrationInterface {
  name = 'Groups1763800000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      if (!(await relationExists(q, 'invitations'))) await this.create(q);
    });
  }

  /** Every statement of the migration, committed together. */
  private async create(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE groups (
        id                   uuid PRIMARY KEY,
        game_id              uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        kind                 text NOT NULL,
        name                 text NOT NULL,
        visibility           text NOT NULL CHECK (visibility IN ('public', 'invite-only', 'secret')),
        metadata             jsonb NOT NULL DEFAULT '{}'::jsonb,
        default_role_id      text,
        passcode_hash        text,
        parent_group_id      uuid REFERENCES groups(id) ON DELETE SET NULL,
        active_member_count  integer NOT NULL DEFAULT 0,
        created_at           timestamptz(3) NOT NULL DEFAULT now(),
        updated_at           timestamptz(3) NOT NULL DEFAULT now(),
        soft_deleted_at      timestamptz(3)
      )`);
    await q.query(`CREATE INDEX groups_game_order ON groups (game_id, created_at DESC, id DESC) WHERE soft_deleted_at IS NULL`);
    await q.query(`CREATE INDEX groups_children_order ON groups (parent_group_id, created_at DESC, id DESC) WHERE soft_deleted_at IS NULL`);
    await q.query(`CREATE INDEX groups_soft_deleted ON groups (soft_deleted_at) WHERE soft_deleted_at IS NOT NULL`);

    await q.query(`
      CREATE TABLE members (
        id                uuid PRIMARY KEY,
        group_id          uuid NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
        user_id           uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        external_user_id  text NOT NULL,
        status            text NOT NULL CHECK (status IN ('active', 'invited', 'left', 'kicked', 'banned')),
        metadata          jsonb NOT NULL DEFAULT '{}'::jsonb,
        notes_public      text,
        notes_private     text,
        joined_at         timestamptz(3) NOT NULL DEFAULT now(),
        left_at           timestamptz(3),
        banned_until      timestamptz(3),
        UNIQUE (group_id, user_id)
      )`);
    await q.query(`CREATE INDEX members_group_order ON members (group_id, joined_at DESC, id DESC)`);
    await q.query(`CREATE INDEX members_group_status_order ON members (group_id, status, joined_at DESC, id DESC)`);
    await q.query(`CREATE INDEX members_user_order ON members (user_id, joined_at DESC, id DESC)`);

    // memberCount (SPEC §2) is read at request time from this counter, kept in step with the
    // members' statuses by the trigger in the same transaction: a page of groups never counts rows.
    await q.query(`
      CREATE FUNCTION members_active_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF NEW.status = 'active' THEN
            UPDATE groups SET active_member_count = active_member_count + 1 WHERE id = NEW.group_id;
          END IF;
        ELSIF TG_OP = 'DELETE' THEN
          IF OLD.status = 'active' THEN
            UPDATE groups SET active_member_count = active_member_count - 1 WHERE id = OLD.group_id;
          END IF;
        ELSIF OLD.status IS DISTINCT FROM NEW.status THEN
          IF OLD.status = 'active' THEN
            UPDATE groups SET active_member_count = active_member_count - 1 WHERE id = OLD.group_id;
          ELSIF NEW.status = 'active' THEN
            UPDATE groups SET active_member_count = active_member_count + 1 WHERE id = NEW.group_id;
          END IF;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER members_active_count AFTER INSERT OR DELETE OR UPDATE OF status ON members
      FOR EACH ROW EXECUTE FUNCTION members_active_count()`);

    await q.query(`
      CREATE TABLE invitations (
        id              uuid PRIMARY KEY,
        group_id        uuid NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
        code            char(16) NOT NULL UNIQUE,
        role_id         text,
        target_user_id  text,
        created_at      timestamptz(3) NOT NULL DEFAULT now(),
        expires_at      timestamptz(3),
        used_at         timestamptz(3),
        used_by         uuid
      )`);
    await q.query(`CREATE INDEX invitations_group_order ON invitations (group_id, created_at DESC, id DESC)`);

    // A hard delete removes the group's audit history with it (SPEC §3 Group lifecycle).
    await q.query(
      `ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_group_fk
       FOREIGN KEY (group_id) REFERENCES groups(id) ON DELETE CASCADE`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_group_fk');
    await q.query('DROP TABLE invitations, members, groups');
    await q.query('DROP FUNCTION members_active_count');
  }
}
