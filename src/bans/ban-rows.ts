export interface BanRow {
  id: string;
  gameId: string;
  svcUserId: string;
  userId: string;
  bannedAt: Date;
  expiresAt: Date | null;
  reason: string | null;
  bannedBy: string | null;
  /** expiresAt has passed by the database clock: the ban no longer counts (lazy expiry). */
  expired: boolean;
}

export const BAN_COLUMNS = `b.id, b.game_id AS "gameId", b.user_id AS "svcUserId", b.external_user_id AS "userId",
  b.banned_at AS "bannedAt", b.expires_at AS "expiresAt", b.reason, b.banned_by AS "bannedBy",
  coalesce(b.expires_at <= now(), false) AS expired`;

export interface BanHistoryRow {
  id: string;
  gameId: string;
  userId: string;
  scope: 'game' | 'group';
  groupId: string | null;
  kind: 'set' | 'lifted';
  reason: string | null;
  expiresAt: Date | null;
  eventAt: Date;
  actorUserId: string | null;
}

export const HISTORY_COLUMNS = `h.id, h.game_id AS "gameId", h.external_user_id AS "userId", h.scope, h.group_id AS "groupId",
  h.kind, h.reason, h.expires_at AS "expiresAt", h.event_at AS "eventAt", h.actor_user_id AS "actorUserId"`;
