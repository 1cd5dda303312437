import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { uuidv7 } from '../common/ids';
import { sqlRows } from '../db/sql';
import type { Alongside } from '../groups/groups.repository';
import { LOOKUP_MEMBER, MEMBER_SCALAR_COLUMNS, roleColumns } from '../members/member-row';
import { ROLE_COLUMNS, type RoleRow } from './role-row';

export interface RoleChanges {
  name?: string;
  priority?: number;
  color?: string | null;
  isDefault?: boolean;
}

const COLUMN: Record<keyof RoleChanges, string> = { name: 'name', priority: 'priority', color: 'color', isDefault: 'is_default' };
const UNIQUE_VIOLATION = '23505';

/** The unique (group, name) index settles concurrent creates and renames. */
function nameTaken(err: unknown): never {
  if ((err as { code?: string }).code === UNIQUE_VIOLATION) {
    throw new ApiError('role_name_taken', 'a role of this group already has that name');
  }
  throw err;
}

/**
 * A role's assignment to the user the group lookup names, or its removal, made in the lookup's
 * statement (GroupsRepository.findWithUser) once the group's lock is held. The role is read with
 * FOR KEY SHARE (a concurrent delete of it finishes first, or waits for this change) and changed
 * only when it belongs to the group. An assignment made again takes the new `expiresAt` (null:
 * permanent) and counts as a change only when that differs (EXTENSIONS X8). The `alongside` row is
 * the member (none when the user is no member of it) with its roles after the change (see
 * roleColumns), `roleId` and `roleGroupId` (null when the role is not of this game or its group
 * is deleted) and `changed`.
 */
export function roleChangeAlongside(op: 'assign' | 'remove', roleId: string | null, expiresAt: Date | null = null): Alongside {
  return (p) => {
    const change =
      op === 'assign'
        ? `INSERT INTO member_roles AS mr (member_id, role_id, expires_at, member_joined_at)
           SELECT mem.id, role.id, ${p(expiresAt)}::timestamptz, mem."joinedAt" FROM mem JOIN role ON role.group_id = mem."groupId"
           ON CONFLICT (member_id, role_id) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE mr.expires_at IS DISTINCT FROM EXCLUDED.expires_at
           RETURNING mr.role_id, mr.created_at, mr.expires_at`
        : `DELETE FROM member_roles mr USING mem, role WHERE mr.member_id = mem.id AND mr.role_id = role.id AND role.group_id = mem."groupId"
           RETURNING mr.role_id, mr.created_at, mr.expires_at`;
    // The statement's snapshot does not see its own change: the assignments after it are composed here.
    const after = `(SELECT mr.role_id, mr.created_at, mr.expires_at FROM member_roles mr WHERE mr.member_id = mem.id AND mr.role_id NOT IN (SELECT c.role_id FROM change c)
       ${op === 'assign' ? 'UNION ALL SELECT c.role_id, c.created_at, c.expires_at FROM change c' : ''})`;
    return `role AS (
       SELECT r.id, r.group_id FROM roles r JOIN groups g ON g.id = r.group_id JOIN lookup l ON g.game_id = l."gameId"
       WHERE r.id = ${p(roleId)}::uuid AND g.soft_deleted_at IS NULL FOR KEY SHARE OF r),
     mem AS (SELECT ${MEMBER_SCALAR_COLUMNS} FROM ${LOOKUP_MEMBER} WHERE l."softDeletedAt" IS NULL),
     change AS (${change}),
     alongside AS (
       SELECT mem.*, ${roleColumns(`${after} a`, 'true')},
              (SELECT role.id FROM role) AS "roleId", (SELECT role.group_id FROM role) AS "roleGroupId",
              EXISTS (SELECT 1 FROM change) AS changed
       FROM mem)`;
  };
}

/** Roles, their granted permissions and their assignments to members. */
@Injectable()
export class RolesRepository {
  async insert(m: EntityManager, r: Omit<RoleRow, 'id' | 'permissions' | 'createdAt'>): Promise<RoleRow> {
    const rows = await sqlRows<RoleRow>(
      m,
      `INSERT INTO roles AS r (id, group_id, name, priority, color, is_default) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING ${ROLE_COLUMNS}`,
      [uuidv7(), r.groupId, r.name, r.priority, r.color, r.isDefault],
    ).catch(nameTaken);
    return rows[0];
  }

  /**
   * A role of a game with its group's deletion state. `lock` serialises the role's writers
   * (an assignment only keeps the role from being deleted: see roleChangeAlongside).
   */
  async findInGame(m: EntityManager, gameId: string, id: string, lock = false): Promise<(RoleRow & { groupDeleted: boolean }) | null> {
    const [row] = await sqlRows<RoleRow & { groupDeleted: boolean }>(
      m,
      `SELECT ${ROLE_COLUMNS}, g.soft_deleted_at IS NOT NULL AS "groupDeleted"
       FROM roles r JOIN groups g ON g.id = r.group_id
       WHERE r.id = $1 AND g.game_id = $2${lock ? ' FOR UPDATE OF r' : ''}`,
      [id, gameId],
    );
    return row ?? null;
  }

  /** A group's roles, priority descending then id descending, on roles_group_order. */
  listForGroup(m: EntityManager, groupId: string): Promise<RoleRow[]> {
    return sqlRows<RoleRow>(m, `SELECT ${ROLE_COLUMNS} FROM roles r WHERE r.group_id = $1 ORDER BY r.priority DESC, r.id DESC`, [
      groupId,
    ]);
  }

  /** Whether a role with this id exists in the group. */
  async existsInGroup(m: EntityManager, groupId: string, id: string): Promise<boolean> {
    return (await sqlRows(m, 'SELECT 1 FROM roles WHERE id = $1 AND group_id = $2', [id, groupId])).length > 0;
  }

  async update(m: EntityManager, id: string, changes: RoleChanges): Promise<RoleRow> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const [key, value] of Object.entries(changes) as [keyof RoleChanges, unknown][]) {
      params.push(value);
      sets.push(`${COLUMN[key]} = $${params.length}`);
    }
    const rows = await sqlRows<RoleRow>(m, `UPDATE roles r SET ${sets.join(', ')} WHERE r.id = $1 RETURNING ${ROLE_COLUMNS}`, params).catch(
      nameTaken,
    );
    return rows[0];
  }

  async hasAssignments(m: EntityManager, id: string): Promise<boolean> {
    return (await sqlRows(m, 'SELECT 1 FROM member_roles WHERE role_id = $1 LIMIT 1', [id])).length > 0;
  }

  async delete(m: EntityManager, id: string): Promise<void> {
    await m.query('DELETE FROM roles WHERE id = $1', [id]);
  }

  /** Grants a key; true when it was not granted before. */
  async grant(m: EntityManager, id: string, permission: string): Promise<boolean> {
    const rows = await sqlRows(
      m,
      'INSERT INTO role_permissions (role_id, permission) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1',
      [id, permission],
    );
    return rows.length > 0;
  }

  /** Revokes a key; true when it was granted. */
  async revoke(m: EntityManager, id: string, permission: string): Promise<boolean> {
    const rows = await sqlRows(m, 'DELETE FROM role_permissions WHERE role_id = $1 AND permission = $2 RETURNING 1', [id, permission]);
    return rows.length > 0;
  }
}
