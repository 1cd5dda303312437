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
  /** Ids of the roles assigned, in assignment order. */
  roles: string[];
}

export const MEMBER_STATUSES = ['active', 'invited', 'left', 'kicked', 'banned'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/** The member row `m` of the user the group lookup `l` names (GroupsRepository.findWithUser), as a FROM item. */
export const LOOKUP_MEMBER = `members m JOIN lookup l ON m.group_id = l.id AND m.user_id = l."svcUserId"`;

/** A member row's columns but its roles (as `MemberRow`, from `members m`). */
export const MEMBER_SCALAR_COLUMNS = `m.id, m.group_id AS "groupId", m.user_id AS "svcUserId", m.external_user_id AS "userId",
  m.status, m.metadata, m.notes_public AS "notesPublic", m.notes_private AS "notesPrivate",
  m.joined_at AS "joinedAt", m.left_at AS "leftAt", m.banned_until AS "bannedUntil"`;

export const MEMBER_COLUMNS = `${MEMBER_SCALAR_COLUMNS},
  ARRAY(SELECT mr.role_id::text FROM member_roles mr WHERE mr.member_id = m.id ORDER BY mr.created_at, mr.role_id) AS roles`;
