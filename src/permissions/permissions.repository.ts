import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { preparedRows, sqlRows } from '../db/sql';
import type { Alongside } from '../groups/groups.repository';
import { internalIdSql } from '../identity/identity.repository';
import { LOOKUP_MEMBER } from '../members/member-row';
import { GROUP_JSON_PARTS, groupPageSql } from '../groups/group-json';
import { unpack } from '../db/packed-row';
import { epochMsSql, liveGrant } from './grant-sql';
import { byResolutionOrder, NOT_A_MEMBER, type GrantProfile } from './grant-profile';

export interface OverrideRow {
  memberId: string;
  permission: string;
  allowed: boolean;
}

/**
 * A live group's fields as groupJson writes them (GROUP_JSON_PARTS), with the user's membership in
 * it: joinedAt (epoch ms) and member id, the list's keyset.
 */
export interface MembershipRow {
  group: readonly string[];
  groupId: string;
  memberJoinedAt: string;
  memberId: string;
}

/** activeMemberships' row: the group's parts, then the membership's joinedAt and id. */
const MEMBERSHIP_PARTS = [`${epochMsSql('m.joined_at')}::text`, 'm.id::text'];

/** The member the group lookup names (none when the user is no member of the live group). */
const OVERRIDE_MEMBER = `mem AS (SELECT m.id, m.group_id, m.joined_at FROM ${LOOKUP_MEMBER} WHERE l."softDeletedAt" IS NULL)`;

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
       INSERT INTO member_permission_overrides (member_id, permission, allowed, expires_at, group_id, member_joined_at)
       SELECT mem.id, ${permissionRef}, ${allowedRef}::boolean, ${expiresRef}::timestamptz, mem.group_id, mem.joined_at FROM mem
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

interface ProfileRow {
  live: boolean;
  member_id: string | null;
  /** When the member's timeout ends (epoch ms), null without one. */
  timed_out_until: number | string | null;
  /** [permission, allowed, expires (epoch ms or null)] per live override. */
  overrides: [string, boolean, number | string | null][] | null;
  /** [role id, priority, expires (epoch ms or null), the role's keys or null] per live assignment. */
  roles: [string, number, number | string | null, string[] | null][] | null;
}

const epochOrNull = (ms: number | string | null): number | null => (ms === null ? null : Number(ms));

function toProfile(r: ProfileRow): GrantProfile {
  if (r.member_id === null) return NOT_A_MEMBER;
  return {
    activeMember: true,
    timedOutUntil: epochOrNull(r.timed_out_until),
    overrides: new Map((r.overrides ?? []).map(([permission, allowed, at]) => [permission, { allowed, expiresAt: epochOrNull(at) }])),
    roles: (r.roles ?? [])
      .map(([id, priority, at, keys]) => ({ id, priority, expiresAt: epochOrNull(at), permissions: new Set(keys ?? []) }))
      .sort(byResolutionOrder),
  };
}

/** Permission facts, member overrides and the per-game permission catalog. */
@Injectable()
export class PermissionsRepository {
  /**
   * The grant profiles of (group, external user) pairs in one statement, so from one snapshot: in
   * the order given, null where the group is not a live group of the game. Each distinct external
   * id is resolved once; a member's grants come whole (every key), so later keys need no query.
   * The group is a scalar subquery, a probe of groups_pkey whatever the planner guesses of the
   * list's length: as a join it may hash every group of the game.
   */
  async profiles(ds: DataSource, gameId: string, pairs: readonly { groupId: string; userId: string }[]): Promise<(GrantProfile | null)[]> {
    const rows = await preparedRows<ProfileRow>(
      ds,
      'svc_permission_profiles',
      `WITH q AS (
         SELECT * FROM unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS q(group_id, external_id, i)
       ), u AS MATERIALIZED (
         SELECT x.external_id, ${internalIdSql('$1', 'x.external_id')} AS user_id FROM (SELECT DISTINCT external_id FROM q) x
       ), p AS MATERIALIZED (
         SELECT q.i, u.user_id, (SELECT g.id FROM groups g WHERE g.id = q.group_id AND g.game_id = $1 AND g.soft_deleted_at IS NULL) AS group_id
         FROM q LEFT JOIN u ON u.external_id = q.external_id
       )
       SELECT p.group_id IS NOT NULL AS live, mem.id AS member_id, ${epochMsSql('mem.timed_out_until')} AS timed_out_until,
         (SELECT json_agg(json_build_array(o.permission, o.allowed, ${epochMsSql('o.expires_at')}))
          FROM member_permission_overrides o WHERE o.member_id = mem.id AND ${liveGrant('o')}) AS overrides,
         (SELECT json_agg(json_build_array(r.id, r.priority, ${epochMsSql('mr.expires_at')},
                   (SELECT array_agg(rp.permission) FROM role_permissions rp WHERE rp.role_id = r.id)))
          FROM member_roles mr JOIN roles r ON r.id = mr.role_id WHERE mr.member_id = mem.id AND ${liveGrant('mr')}) AS roles
       FROM p
       LEFT JOIN members mem ON mem.group_id = p.group_id AND mem.user_id = p.user_id AND mem.status = 'active'
       ORDER BY p.i`,
      [gameId, pairs.map((c) => c.groupId), pairs.map((c) => c.userId)],
    );
    return rows.map((row) => (row.live ? toProfile(row) : null));
  }

  /**
   * The next `limit` live groups of the game (of `kind` when given) in which external user `userId`
   * is an active member, in membership order (joinedAt, member id, descending) on
   * members_user_order, after the keyset `after`: each group once, since a user has one member row
   * per group. The identity is resolved in the same statement (none for an id the game has never
   * seen): one round trip. Which of them allow a key is the resolver's to say, from their profiles;
   * the groups come as groupJson writes them.
   */
  async activeMemberships(
    ds: DataSource,
    q: { gameId: string; userId: string; kind?: string; after?: { joinedAt: string; id: string }; limit: number },
  ): Promise<MembershipRow[]> {
    const params: unknown[] = [q.userId, q.gameId, q.limit];
    const where = [`m.user_id = ${internalIdSql('$2', '$1')}`, "m.status = 'active'", 'g.game_id = $2', 'g.soft_deleted_at IS NULL'];
    if (q.kind !== undefined) {
      params.push(q.kind);
      where.push(`g.kind = $${params.length}`);
    }
    if (q.after) {
      params.push(q.after.joinedAt, q.after.id);
      where.push(`(m.joined_at, m.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    const rows = await preparedRows<{ r: string }>(
      ds,
      `svc_active_memberships_${q.kind !== undefined ? 'k' : ''}${q.after ? 'a' : ''}`,
      groupPageSql({
        from: `FROM members m JOIN groups g ON g.id = m.group_id WHERE ${where.join(' AND ')}`,
        order: 'm.joined_at DESC, m.id DESC',
        limit: '$3',
        extra: MEMBERSHIP_PARTS,
      }),
      params,
    );
    return rows.map(({ r }) => {
      const f = unpack(r);
      return { group: f, groupId: f[0], memberJoinedAt: f[GROUP_JSON_PARTS.length], memberId: f[GROUP_JSON_PARTS.length + 1] };
    });
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
