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
}

export const MEMBER_STATUSES = ['active', 'invited', 'left', 'kicked', 'banned'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

export const MEMBER_COLUMNS = `m.id, m.group_id AS "groupId", m.user_id AS "svcUserId", m.external_user_id AS "userId",
  m.status, m.metadata, m.notes_public AS "notesPublic", m.notes_private AS "notesPrivate",
  m.joined_at AS "joinedAt", m.left_at AS "leftAt", m.banned_until AS "bannedUntil"`;
