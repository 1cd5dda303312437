import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { preparedRows, sqlRows } from '../db/sql';
import type { Alongside } from '../groups/groups.repository';
import { externalKey } from '../identity/identity.repository';
import { LOOKUP_MEMBER } from '../members/member-row';
import { GROUP_COLUMNS, type GroupRow } from '../groups/group-row';
import { allowedSql, epochMsSql, liveGrant } from './grant-sql';
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
 * the group's lock is held. The `alongside` row is the member's id and `previous`, the override
 * as it stood (null when there was none, or only one past its expiry), `{ allowed, expiresAt }`.
 */
export function overrideSetAlongside(permission: string, allowed: boolean, expiresAt: Date | null): Alongside {
  return (p) => {
    const [permissionRef, allowedRef, expiresRef] = [p(permission), p(allowed), p(expiresAt)];
    return `${OVERRIDE_MEMBER},
     prev AS (
       SELECT o.allowed, o.expires_at FROM member_permission_overrides o JOIN mem ON o.member_id = mem.id
       WHERE o.permission = ${permissionRef} AND ${liveGrant('o')} FOR UPDATE OF o),
     up AS (
       INSERT INTO member_permission_overrides (member_id, permission, allowed, expires_at)
       SELECT mem.id, ${permissionRef}, ${allowedRef}::boolean, ${expiresRef}::timestamptz FROM mem
       ON CONFLICT (member_id, permission) DO UPDATE SET allowed = EXCLUDED.allowed, expires_at = EXCLUDED.expires_at),
     alongside AS (
       SELECT mem.id, (SELECT jsonb_build_object('allowed', prev.allowed, 'expiresAt', ${epochMsSql('prev.expires_at')}) FROM prev) AS previous FROM mem)`;
  };
}

/** Clears a member's override in the group lookup's statement; `previous` as for overrideSetAlongside, an expired one included. */
export function overrideClearAlongside(permission: string): Alongside {
  return (p) => `${OVERRIDE_MEMBER},
     gone AS (DELETE FROM member_permission_overrides o USING mem WHERE o.member_id = mem.id AND o.permission = ${p(permission)} RETURNING o.allowed, o.expires_at),
     alongside AS (
       SELECT mem.id, (SELECT jsonb_build_object('allowed', gone.allowed, 'expiresAt', ${epochMsSql('gone.expires_at')}) FROM gone) AS previous FROM mem)`;
}

interface FactsRow {
  member_id: string | null;
  override: boolean | null;
  override_expires: Date | null;
  via: string | null;
  via_expires: Date | null;
}

/** What the resolver reads of member `member` for key `permission`: its live override and its top live granting role. */
const FACTS_COLUMNS = `mem.id AS member_id, o.allowed AS override, o.expires_at AS override_expires, v.id AS via, v.expires_at AS via_expires`;

function factsJoins(member: string, permission: string): string {
  return `LEFT JOIN member_permission_overrides o ON o.member_id = ${member} AND o.permission = ${permission} AND ${liveGrant('o')}
       LEFT JOIN LATERAL (
         SELECT r.id, mr.expires_at FROM member_roles mr
         JOIN roles r ON r.id = mr.role_id
         JOIN role_permissions rp ON rp.role_id = r.id AND rp.permission = ${permission}
         WHERE mr.member_id = ${member} AND ${liveGrant('mr')}
         ORDER BY r.priority DESC, r.id DESC LIMIT 1) v ON true`;
}

const toFacts = (r: FactsRow): PermissionFacts => ({
  activeMember: r.member_id !== null,
  override: r.override,
  overrideExpiresAt: r.override_expires,
  grantingRoleId: r.via,
  grantingRoleExpiresAt: r.via_expires,
});

/**
 * The opening CTEs of a read about one member of one group (parameters $1 game, $2 group, $3 the
 * external user id): `g`, the group when it is live in the game, and `mem`, the user's active
 * member row in it.
 */
const GROUP_AND_MEMBER = `WITH g AS (
         SELECT id FROM groups WHERE id = $2 AND game_id = $1 AND soft_deleted_at IS NULL
       ), mem AS (
         SELECT mb.id FROM g
         JOIN user_identities ui ON ui.game_id = $1 AND ${externalKey('ui.external_id')} = ${externalKey('$3')} AND ui.external_id = $3
         JOIN members mb ON mb.group_id = g.id AND mb.user_id = ui.user_id AND mb.status = 'active'
       )`;

/** Permission facts, member overrides and the per-game permission catalog. */
@Injectable()
export class PermissionsRepository {
  /**
   * Everything a check needs in one round trip: whether the group is live in the game, and the
   * facts of the resolution order (SPEC §4 Permission check). Null when the group is not found.
   */
  async facts(ds: DataSource, gameId: string, groupId: string, externalUserId: string, permission: string): Promise<PermissionFacts | null> {
    const [row] = await preparedRows<FactsRow & { live: boolean }>(
      ds,
      'svc_permission_facts_x8',
      `${GROUP_AND_MEMBER}
       SELECT EXISTS (SELECT 1 FROM g) AS live, ${FACTS_COLUMNS}
       FROM (SELECT 1) one LEFT JOIN mem ON true
       ${factsJoins('mem.id', '$4')}`,
      [gameId, groupId, externalUserId, permission],
    );
    return row.live ? toFacts(row) : null;
  }

  /**
   * The facts of many checks in one statement, so from one snapshot: in the order given, null
   * where the group is not a live group of the game.
   */
  async batchFacts(ds: DataSource, gameId: string, checks: readonly { groupId: string; userId: string; permission: string }[]): Promise<(PermissionFacts | null)[]> {
    const rows = await preparedRows<FactsRow & { live: boolean }>(
      ds,
      'svc_permission_batch_facts',
      `WITH q AS (
         SELECT * FROM unnest($2::uuid[], $3::text[], $4::text[]) WITH ORDINALITY AS q(group_id, external_id, permission, i)
       )
       SELECT g.id IS NOT NULL AS live, ${FACTS_COLUMNS}
       FROM q
       LEFT JOIN groups g ON g.id = q.group_id AND g.game_id = $1 AND g.soft_deleted_at IS NULL
       LEFT JOIN LATERAL (
         SELECT mb.id FROM user_identities ui JOIN members mb ON mb.group_id = g.id AND mb.user_id = ui.user_id AND mb.status = 'active'
         WHERE ui.game_id = $1 AND ${externalKey('ui.external_id')} = ${externalKey('q.external_id')} AND ui.external_id = q.external_id
       ) mem ON true
       ${factsJoins('mem.id', 'q.permission')}
       ORDER BY q.i`,
      [gameId, checks.map((c) => c.groupId), checks.map((c) => c.userId), checks.map((c) => c.permission)],
    );
    return rows.map((row) => (row.live ? toFacts(row) : null));
  }

  /**
   * The facts of every key the user's grants in the group name (overrides, and the keys of the
   * roles assigned), in force now; null when the group is not found, none for a user who is not
   * an active member.
   */
  async memberFacts(ds: DataSource, gameId: string, groupId: string, externalUserId: string): Promise<{ permission: string; facts: PermissionFacts }[] | null> {
    const rows = await preparedRows<FactsRow & { live: boolean; permission: string | null }>(
      ds,
      'svc_permission_member_facts',
      `${GROUP_AND_MEMBER}, keys AS (
         SELECT o.permission FROM member_permission_overrides o JOIN mem ON o.member_id = mem.id WHERE ${liveGrant('o')}
         UNION
         SELECT rp.permission FROM mem JOIN member_roles mr ON mr.member_id = mem.id AND ${liveGrant('mr')}
         JOIN role_permissions rp ON rp.role_id = mr.role_id
       )
       SELECT EXISTS (SELECT 1 FROM g) AS live, k.permission, ${FACTS_COLUMNS}
       FROM (SELECT 1) one LEFT JOIN (mem CROSS JOIN keys k) ON true
       ${factsJoins('mem.id', 'k.permission')}`,
      [gameId, groupId, externalUserId],
    );
    if (!rows[0]?.live) return null;
    return rows.filter((r) => r.permission !== null).map((r) => ({ permission: r.permission!, facts: toFacts(r) }));
  }

  /**
   * A page of the live groups of the game in which user `svcUserId` is an active member allowed
   * `permission`, in membership order (joinedAt, member id, descending) on members_user_order:
   * each group once, since a user has one member row per group.
   */
  groupsAllowing(
    ds: DataSource,
    q: { gameId: string; svcUserId: string; permission: string; kind?: string; after?: { joinedAt: string; id: string }; limit: number },
  ): Promise<(GroupRow & { memberJoinedAt: Date; memberId: string })[]> {
    const params: unknown[] = [q.svcUserId, q.gameId, q.permission, q.limit + 1];
    const where = ['m.user_id = $1', "m.status = 'active'", 'g.game_id = $2', 'g.soft_deleted_at IS NULL'];
    if (q.kind !== undefined) {
      params.push(q.kind);
      where.push(`g.kind = $${params.length}`);
    }
    if (q.after) {
      params.push(q.after.joinedAt, q.after.id);
      where.push(`(m.joined_at, m.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    return preparedRows(
      ds,
      `svc_groups_allowing_${q.kind !== undefined ? 'k' : ''}${q.after ? 'a' : ''}`,
      `SELECT ${GROUP_COLUMNS}, m.joined_at AS "memberJoinedAt", m.id AS "memberId"
       FROM members m JOIN groups g ON g.id = m.group_id
       WHERE ${where.join(' AND ')} AND ${allowedSql('m.id', '$3')}
       ORDER BY m.joined_at DESC, m.id DESC LIMIT $4`,
      params,
    );
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
