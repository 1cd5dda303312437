import { epochMsSql, liveGrant } from '../permissions/grant-sql';

/** A role assignment in force and when it ends (epoch milliseconds; null: permanent), EXTENSIONS X8. */
export interface RoleGrant {
  roleId: string;
  expiresAt: number | null;
}

/** A members row as the repository reads it; `userId` is the external id (SPEC §2 Member). */
export interface MemberRow {
  id: string;
  groupId: string;
  svcUserId: string;
  userId: string;
  status: MemberStatus;
  metadata: Record<string, unknown>;
  notesPublic: string | null;
  notesPrivate: string | null;
  joinedAt: Date;
  leftAt: Date | null;
  bannedUntil: Date | null;
  /** When the member's timeout ends (EXTENSIONS X10); an instant already past is a timeout that ended. */
  timedOutUntil: Date | null;
  /** The roles assigned with their expiry, in assignment order; an assignment past its expiry is gone already. */
  roleGrants: RoleGrant[];
}

export const MEMBER_STATUSES = ['active', 'invited', 'left', 'kicked', 'banned'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/** The member row `m` of the user the group lookup `l` names (GroupsRepository.findWithUser), as a FROM item. */
export const LOOKUP_MEMBER = `members m JOIN lookup l ON m.group_id = l.id AND m.user_id = l."svcUserId"`;

/** A member row's columns but its roles (as `MemberRow`, from `members m`). */
export const MEMBER_SCALAR_COLUMNS = `m.id, m.group_id AS "groupId", m.user_id AS "svcUserId", m.external_user_id AS "userId",
  m.status, m.metadata, m.notes_public AS "notesPublic", m.notes_private AS "notesPrivate",
  m.joined_at AS "joinedAt", m.left_at AS "leftAt", m.banned_until AS "bannedUntil",
  m.timed_out_until AS "timedOutUntil"`;

/**
 * `roleGrants` of the assignments `a` (role_id, created_at, expires_at) of `from` that `where`
 * keeps and are in force, in assignment order: an assignment past its expiry counts as removed
 * before the sweeper removes it. One read of the assignments gives both `roles` and `roleGrants`
 * (member-view.ts).
 */
export function roleColumns(from: string, where: string): string {
  return `coalesce((SELECT jsonb_agg(jsonb_build_object('roleId', a.role_id, 'expiresAt', ${epochMsSql('a.expires_at')}) ORDER BY a.created_at, a.role_id)
            FROM ${from} WHERE ${where} AND ${liveGrant('a')}), '[]') AS "roleGrants"`;
}

/**
 * The member's assignments, found by the primary key (member_id, role_id). OFFSET 0 keeps the
 * expiry test out of the scan: with it inside, on a small table the planner may walk another
 * index whole for the same cost.
 */
export const MEMBER_ASSIGNMENTS = '(SELECT mr.role_id, mr.created_at, mr.expires_at FROM member_roles mr WHERE mr.member_id = m.id OFFSET 0) a';

export const MEMBER_COLUMNS = `${MEMBER_SCALAR_COLUMNS},
  ${roleColumns(MEMBER_ASSIGNMENTS, 'true')}`;
