import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { preparedRows, sqlRows } from '../db/sql';
import type { Alongside } from '../groups/groups.repository';
import { externalKey } from '../identity/identity.repository';
import { LOOKUP_MEMBER } from '../members/member-row';
import type { PermissionFacts } from './permission-resolver';

export interface OverrideRow {
  memberId: string;
  permission: string;
  allowed: boolean;
}

/** The member the group lookup names (none when the user is no member of the live group). */
const OVERRIDE_MEMBER = `mem AS (SELECT m.id FROM ${LOOKUP_MEMBER} WHERE l."softDeletedAt" IS NULL)`;

/**
 * Sets a member's override in the group lookup's statement (GroupsRepository.findWithUser), once
 * the group's lock is held. The `alongside` row is the member's id and `previous`, the value the
 * override had (null when there was none).
 */
export function overrideSetAlongside(permission: string, allowed: boolean): Alongside {
  return (p) => {
    const [permissionRef, allowedRef] = [p(permission), p(allowed)];
    return `${OVERRIDE_MEMBER},
     prev AS (
       SELECT o.allowed FROM member_permission_overrides o JOIN mem ON o.member_id = mem.id WHERE o.permission = ${permissionRef} FOR UPDATE OF o),
     up AS (
       INSERT INTO member_permission_overrides (member_id, permission, allowed) SELECT mem.id, ${permissionRef}, ${allowedRef}::boolean FROM mem
       ON CONFLICT (member_id, permission) DO UPDATE SET allowed = EXCLUDED.allowed),
     alongside AS (SELECT mem.id, (SELECT allowed FROM prev) AS previous FROM mem)`;
  };
}

/** Clears a member's override in the group lookup's statement; `previous` as for overrideSetAlongside. */
export function overrideClearAlongside(permission: string): Alongside {
  return (p) => `${OVERRIDE_MEMBER},
     gone AS (DELETE FROM member_permission_overrides o USING mem WHERE o.member_id = mem.id AND o.permission = ${p(permission)} RETURNING o.allowed),
     alongside AS (SELECT mem.id, (SELECT allowed FROM gone) AS previous FROM mem)`;
}

/** Permission facts, member overrides and the per-game permission catalog. */
@Injectable()
export class PermissionsRepository {
  /**
   * Everything a check needs in one round trip: whether the group is live in the game, and the
   * facts of the resolution order (SPEC §4 Permission check). Null when the group is not found.
   */
  async facts(ds: DataSource, gameId: string, groupId: string, externalUserId: string, permission: string): Promise<PermissionFacts | null> {
    const [row] = await preparedRows<{ live: boolean; member_id: string | null; override: boolean | null; via: string | null }>(
      ds,
      'svc_permission_facts',
      `WITH g AS (
         SELECT id FROM groups WHERE id = $2 AND game_id = $1 AND soft_deleted_at IS NULL
       ), mem AS (
         SELECT mb.id FROM g
         JOIN user_identities ui ON ui.game_id = $1 AND ${externalKey('ui.external_id')} = ${externalKey('$3')} AND ui.external_id = $3
         JOIN members mb ON mb.group_id = g.id AND mb.user_id = ui.user_id AND mb.status = 'active'
       )
       SELECT EXISTS (SELECT 1 FROM g) AS live,
              (SELECT id FROM mem) AS member_id,
              (SELECT o.allowed FROM member_permission_overrides o JOIN mem ON o.member_id = mem.id WHERE o.permission = $4) AS override,
              (SELECT r.id FROM mem
                 JOIN member_roles mr ON mr.member_id = mem.id
                 JOIN roles r ON r.id = mr.role_id
                 JOIN role_permissions rp ON rp.role_id = r.id AND rp.permission = $4
               ORDER BY r.priority DESC, r.id DESC LIMIT 1) AS via`,
      [gameId, groupId, externalUserId, permission],
    );
    if (!row.live) return null;
    return { activeMember: row.member_id !== null, override: row.override, grantingRoleId: row.via };
  }

  /** Registers a key in the game's catalog on its first grant; never removed (SPEC §2 Role). */
  async register(m: EntityManager, gameId: string, permission: string): Promise<void> {
    await m.query(
      `INSERT INTO permission_catalog (game_id, permission) VALUES ($1, $2) ON CONFLICT (game_id, permission) DO NOTHING`,
      [gameId, permission],
    );
  }

  catalog(m: EntityManager, gameId: string): Promise<{ permission: string; createdAt: Date }[]> {
    return sqlRows(
      m,
      `SELECT permission, created_at AS "createdAt" FROM permission_catalog WHERE game_id = $1 ORDER BY permission`,
      [gameId],
    );
  }
}
