import type { NotificationKind } from './notification-kinds';

/** A notifications row as the repositories read it (NOTIFICATION_COLUMNS): the users by their external ids. */
export interface NotificationRow {
  id: string;
  gameId: string;
  /** The recipient's internal id. */
  svcUserId: string;
  /** The recipient's external id in the game. */
  userId: string;
  kind: NotificationKind;
  groupId: string | null;
  /** The actor's external id in the game, the pseudonym of an erased actor, or null. */
  actorUserId: string | null;
  data: Record<string, unknown>;
  createdAt: Date;
  readAt: Date | null;
}

/**
 * NotificationRow's columns from `notifications n`, the recipient's external id being `recipient`
 * (SQL). The table keeps internal ids; the actor's external id is read in the same statement, one
 * probe of user_identities' (user_id, game_id) key per row, as the friends lists name their users
 * (no query per row).
 */
export const notificationColumns = (recipient: string): string => `n.id, n.game_id AS "gameId", n.user_id AS "svcUserId",
  ${recipient} AS "userId",
  n.kind, n.group_id AS "groupId",
  coalesce((SELECT ui.external_id FROM user_identities ui WHERE ui.user_id = n.actor_user_id AND ui.game_id = n.game_id), n.actor_pseudonym) AS "actorUserId",
  n.data, n.created_at AS "createdAt", n.read_at AS "readAt"`;

/** NotificationRow's columns, the recipient's external id probed as the actor's is. */
export const NOTIFICATION_COLUMNS = notificationColumns(
  '(SELECT ui.external_id FROM user_identities ui WHERE ui.user_id = n.user_id AND ui.game_id = n.game_id)',
);
