import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { uuidv7 } from '../common/ids';
import { sqlRows } from '../db/sql';
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

/** What `changeAssignment` did. */
export interface RoleAssignmentChange {
  /** The role's id and group; null when the role is not of this game or its group is deleted. */
  roleId: string | null;
  roleGroupId: string | null;
  changed: boolean;
  /** The member's role ids after the change, in assignment order (member-row.ts). */
  roles: string[];
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
   * A role of a game with its group's deletion state. `lock` serialises the role's writers;
   * `'key-share'` only keeps the role from being deleted meanwhile (an assignment's), so
   * assignments of one role run side by side.
   */
  async findInGame(m: EntityManager, gameId: string, id: string, lock: boolean | 'key-share' = false): Promise<(RoleRow & { groupDeleted: boolean }) | null> {
    const [row] = await sqlRows<RoleRow & { groupDeleted: boolean }>(
      m,
      `SELECT ${ROLE_COLUMNS}, g.soft_deleted_at IS NOT NULL AS "groupDeleted"
       FROM roles r JOIN groups g ON g.id = r.group_id
       WHERE r.id = $1 AND g.game_id = $2${lock === 'key-share' ? ' FOR KEY SHARE OF r' : lock ? ' FOR UPDATE OF r' : ''}`,
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

  /**
   * Assigns a role to a member, or removes it, in ONE statement with the role's lookup: the role is
   * read with FOR KEY SHARE (a concurrent delete of it finishes first or waits for this change) and
   * changed only when it belongs to `groupId`.
   */
  async changeAssignment(
    m: EntityManager,
    op: 'assign' | 'remove',
    q: { gameId: string; groupId: string; memberId: string; roleId: string },
  ): Promise<RoleAssignmentChange> {
    const change =
      op === 'assign'
        ? `INSERT INTO member_roles (member_id, role_id) SELECT $3, r.id FROM r WHERE r.group_id = $4
           ON CONFLICT DO NOTHING RETURNING role_id, created_at`
        : `DELETE FROM member_roles mr USING r WHERE mr.member_id = $3 AND mr.role_id = r.id AND r.group_id = $4
           RETURNING mr.role_id, mr.created_at`;
    // The statement's own snapshot does not see its change: the roles after it are composed here.
    const after =
      op === 'assign'
        ? `SELECT mr.role_id, mr.created_at FROM member_roles mr WHERE mr.member_id = $3 UNION ALL SELECT c.role_id, c.created_at FROM c`
        : `SELECT mr.role_id, mr.created_at FROM member_roles mr WHERE mr.member_id = $3 AND mr.role_id NOT IN (SELECT c.role_id FROM c)`;
    const [row] = await sqlRows<RoleAssignmentChange>(
      m,
      `WITH r AS (
         SELECT r.id, r.group_id FROM roles r JOIN groups g ON g.id = r.group_id
         WHERE r.id = $1 AND g.game_id = $2 AND g.soft_deleted_at IS NULL FOR KEY SHARE OF r),
       c AS (${change})
       SELECT (SELECT r.id FROM r) AS "roleId", (SELECT r.group_id FROM r) AS "roleGroupId", EXISTS (SELECT 1 FROM c) AS changed,
              ARRAY(SELECT a.role_id::text FROM (${after}) a ORDER BY a.created_at, a.role_id) AS roles`,
      [q.roleId, q.gameId, q.memberId, q.groupId],
    );
    return row;
  }
}
