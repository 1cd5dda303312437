import { epochMsSql } from '../permissions/grant-sql';
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
 * The actor's external id in the game, or the pseudonym of an erased actor, from `notifications n`:
 * one probe of user_identities' (user_id, game_id) key per row, as the friends lists name their
 * users (no query per row).
 */
const ACTOR_USER_ID = `coalesce((SELECT ui.external_id FROM user_identities ui WHERE ui.user_id = n.actor_user_id AND ui.game_id = n.game_id), n.actor_pseudonym)`;

/** NotificationRow's columns from `notifications n`: the table keeps internal ids, the users are read by their external ids in the same statement. */
export const NOTIFICATION_COLUMNS = `n.id, n.game_id AS "gameId", n.user_id AS "svcUserId",
  (SELECT ui.external_id FROM user_identities ui WHERE ui.user_id = n.user_id AND ui.game_id = n.game_id) AS "userId",
  n.kind, n.group_id AS "groupId", ${ACTOR_USER_ID} AS "actorUserId",
  n.data, n.created_at AS "createdAt", n.read_at AS "readAt"`;

/**
 * A notification of a player's list, read in the forms its JSON is written from (notificationJson)
 * rather than parsed; the recipient is the player asked about.
 */
export interface NotificationListRow {
  id: string;
  kind: NotificationKind;
  groupId: string | null;
  actorUserId: string | null;
  /** Epoch milliseconds (epochMsSql). */
  createdAt: string;
  readAt: string | null;
  /** The jsonb as PostgreSQL prints it. */
  data: string;
}

/** NotificationListRow's columns from `notifications n`. */
export const NOTIFICATION_LIST_COLUMNS = `n.id, n.kind, n.group_id AS "groupId", ${ACTOR_USER_ID} AS "actorUserId",
  ${epochMsSql('n.created_at')} AS "createdAt", ${epochMsSql('n.read_at')} AS "readAt", n.data::text AS data`;
