import type { MigrationInterface, QueryRunner } from 'typeorm';
import { lockedTransaction, relationExists } from './online';

/**
 * Roles, permissions, member overrides, the permission catalog, and bans (SPEC §2, §3).
 *
 * Online (docs/operations.md, Schema changes): the new tables' foreign keys take a lock that
 * blocks the writes of groups, members, games and users.
 * So it runs in a transaction of its own (`transaction = false`, lockedTransaction) where each
 * statement waits a few seconds at most for its lock; behind a long transaction it rolls back,
 * lets the writes queued behind it through and tries again. Its statements commit together:
 * when ban_history exists, an earlier run committed them all. The builds before it know none of
 * these tables: every release may run after it.
 */
export class RolesBans1763900000000 implements MigrationInterface {
  name = 'RolesBans1763900000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      if (!(await relationExists(q, 'ban_history'))) await this.create(q);
    });
  }

  /** Every statement of the migration, committed together. */
  private async create(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE roles (
        id          uuid PRIMARY KEY,
        group_id    uuid NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
        name        text NOT NULL,
        priority    integer NOT NULL,
        color       text,
        is_default  boolean NOT NULL DEFAULT false,
        created_at  timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT roles_name_unique UNIQUE (group_id, name)
      )`);
    await q.query(`CREATE INDEX roles_group_order ON roles (group_id, priority DESC, id DESC)`);

    await q.query(`
      CREATE TABLE role_permissions (
        role_id     uuid NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
        permission  text NOT NULL,
        created_at  timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (role_id, permission)
      )`);
    await q.query(`CREATE INDEX role_permissions_permission ON role_permissions (permission, role_id)`);

    // No cascade from roles: a role with assignments cannot be deleted (409 role_has_members).
    await q.query(`
      CREATE TABLE member_roles (
        member_id   uuid NOT NULL REFERENCES members(id) ON DELETE CASCADE,
        role_id     uuid NOT NULL REFERENCES roles(id),
        created_at  timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (member_id, role_id)
      )`);
    await q.query(`CREATE INDEX member_roles_role ON member_roles (role_id)`);

    await q.query(`
      CREATE TABLE member_permission_overrides (
        member_id   uuid NOT NULL REFERENCES members(id) ON DELETE CASCADE,
        permission  text NOT NULL,
        allowed     boolean NOT NULL,
        created_at  timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (member_id, permission)
      )`);

    await q.query(`
      CREATE TABLE permission_catalog (
        game_id     uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        permission  text NOT NULL,
        created_at  timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (game_id, permission)
      )`);

    await q.query(`
      CREATE TABLE game_bans (
        id                 uuid PRIMARY KEY,
        game_id            uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        user_id            uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        external_user_id   text NOT NULL,
        banned_at          timestamptz(3) NOT NULL DEFAULT now(),
        expires_at         timestamptz(3),
        reason             text,
        banned_by          text,
        CONSTRAINT game_bans_user_unique UNIQUE (game_id, user_id)
      )`);
    await q.query(`CREATE INDEX game_bans_order ON game_bans (game_id, banned_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE ban_history (
        id                uuid PRIMARY KEY,
        game_id           uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        user_id           uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        external_user_id  text NOT NULL,
        scope             text NOT NULL CHECK (scope IN ('game', 'group')),
        group_id          uuid,
        kind              text NOT NULL CHECK (kind IN ('set', 'lifted')),
        reason            text,
        expires_at        timestamptz(3),
        event_at          timestamptz(3) NOT NULL DEFAULT now(),
        actor_user_id     text
      )`);
    await q.query(`CREATE INDEX ban_history_user_order ON ban_history (game_id, user_id, event_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'DROP TABLE ban_history, game_bans, permission_catalog, member_permission_overrides, member_roles, role_permissions, roles',
    );
  }
}
