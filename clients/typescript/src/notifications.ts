import type { GuildhallClient } from './client.js';
import { GuildhallError } from './errors.js';
import type { OkBody, Operation } from './path-types.js';

type ListPath = '/v1/users/{userId}/notifications';

/** A page of a player's notifications, newest first (EXTENSIONS X9). */
export type NotificationPage = OkBody<Operation<ListPath, 'get'>>;
/** One notification: what happened to the player, read or not (`readAt`), and what a screen shows of it (`data`). */
export type Notification = NotificationPage['items'][number];
export type NotificationKind = Notification['kind'];
/** `{ unread, byKind }`: the unread, in all and by kind (only the kinds with some). */
export type NotificationCounts = OkBody<Operation<'/v1/users/{userId}/notifications/counts', 'get'>>;

export interface ListNotificationsOptions {
  /** Only those not read yet. */
  unread?: boolean;
  /** Only these kinds. */
  kinds?: readonly NotificationKind[];
  /** Page size (default 50, up to the service's page cap). */
  limit?: number;
  /** The `nextCursor` of the previous page, of the same player and filters. */
  cursor?: string;
  signal?: AbortSignal;
}

/** Which notifications to mark read: some by id (1 to 100), or every one unread now; not both (the service answers 400). */
export type NotificationsToMark = { ids: readonly string[]; all?: never } | { all: true; ids?: never };

const userPath = (userId: string) => ({ path: { userId } });

/**
 * One page of a player's notifications, newest first. A player the game has never seen has an empty
 * page. An error answer (a `kinds` name that is no kind, a cursor of other filters) throws
 * `GuildhallError`. For every page, `paginate(client, '/v1/users/{userId}/notifications', …)`.
 */
export async function listNotifications(client: GuildhallClient, userId: string, options: ListNotificationsOptions = {}): Promise<NotificationPage> {
  const { unread, kinds, limit, cursor, signal } = options;
  const query = { unread: unread === undefined ? undefined : unread ? ('true' as const) : ('false' as const), kinds: kinds?.join(','), limit, cursor };
  const { data, error, response } = await client.GET('/v1/users/{userId}/notifications', { params: { ...userPath(userId), query }, signal });
  if (error !== undefined || data === undefined) throw GuildhallError.fromResponse(response, error);
  return data;
}

/** How many of a player's notifications are unread, in all and by kind: a badge. Zero for a player never seen. */
export async function notificationCounts(client: GuildhallClient, userId: string, signal?: AbortSignal): Promise<NotificationCounts> {
  const { data, error, response } = await client.GET('/v1/users/{userId}/notifications/counts', { params: userPath(userId), signal });
  if (error !== undefined || data === undefined) throw GuildhallError.fromResponse(response, error);
  return data;
}

/**
 * Marks notifications read, and answers how many were unread and are read now: ids of another
 * player, read already or unknown count nothing, so a retry is safe. The player's streams on every
 * device hear of it.
 */
export async function markNotificationsRead(client: GuildhallClient, userId: string, which: NotificationsToMark): Promise<number> {
  const body = which.all ? { all: true as const } : { ids: [...which.ids] };
  const { data, error, response } = await client.POST('/v1/users/{userId}/notifications/read', { params: userPath(userId), body });
  if (error !== undefined || data === undefined) throw GuildhallError.fromResponse(response, error);
  return data.marked;
}

/** Dismisses (deletes) one notification of the player; `GuildhallError` 404 when it is not theirs. */
export async function dismissNotification(client: GuildhallClient, userId: string, id: string): Promise<void> {
  const { error, response } = await client.DELETE('/v1/users/{userId}/notifications/{id}', { params: { path: { userId, id } } });
  if (!response.ok) throw GuildhallError.fromResponse(response, error);
}
