export const JOIN_REQUEST_STATUSES = ['pending', 'approved', 'declined', 'cancelled'] as const;
export type JoinRequestStatus = (typeof JOIN_REQUEST_STATUSES)[number];

/** A join_requests row as the repository reads it; `userId` and `decidedByUserId` are external ids. */
export interface JoinRequestRow {
  id: string;
  gameId: string;
  groupId: string;
  svcUserId: string;
  userId: string;
  message: string | null;
  status: JoinRequestStatus;
  createdAt: Date;
  decidedAt: Date | null;
  decidedByUserId: string | null;
}

export const JOIN_REQUEST_COLUMNS = `r.id, r.game_id AS "gameId", r.group_id AS "groupId", r.user_id AS "svcUserId",
  r.external_user_id AS "userId", r.message, r.status, r.created_at AS "createdAt", r.decided_at AS "decidedAt",
  r.decided_by_user_id AS "decidedByUserId"`;
