import type { Notification } from './notifications.js';
import { backoffMs, connectSse, HEARTBEAT_TIMEOUT_MS, sleep } from './sse-connection.js';

/** Marks made by any device: some ids (those that were unread, or a dismissed unread one), or all that were unread at `before`. */
export type NotificationsRead = { ids: string[] } | { all: true; before: string };

/** A frame of a player's notification stream. */
export type NotificationFrame = { type: 'notification'; notification: Notification } | ({ type: 'notifications.read' } & NotificationsRead);

export interface FollowNotificationsOptions {
  baseUrl: string;
  apiKey: string;
  /** The player, by the id the game uses. */
  userId: string;
  /**
   * The id of the last notification already handled: the player's notifications after it are
   * replayed, then the stream goes live. Without it the stream starts live, from the player's
   * latest notification, which a reconnection then resumes after.
   */
  after?: string;
  /** Aborting ends the iteration (no error) and closes the connection. */
  signal?: AbortSignal;
  fetch?: typeof globalThis.fetch;
  /** Silence (no frame, no heartbeat) after which the connection is replaced. The server sends a heartbeat every 30 s. Default 75 s. */
  heartbeatTimeoutMs?: number;
}

/** A connection's opening, then its frames: what the unread count needs to know of a stream. */
export type NotificationStreamItem = { type: 'open' } | NotificationFrame;

/** Where a player's stream resumes: the last notification it delivered, or the one it opened at. */
export interface NotificationPosition {
  after: string | undefined;
}

/**
 * A player's notifications as they happen (`GET /v1/users/:userId/notifications/stream`), across
 * dropped connections: each reconnection sends `Last-Event-ID`, the last notification delivered, so
 * none is repeated or skipped. Marks are not replayed: a `notifications.read` made while no
 * connection was open is not seen (`followUnreadCount` reads the counts again for that). What
 * waiting cannot fix throws `GuildhallError`: a wrong key (401), an `after` that is no notification
 * id (400), one no longer kept (410 `events_expired`: start again without it, and read the list).
 */
export async function* followNotifications(options: FollowNotificationsOptions): AsyncGenerator<NotificationFrame, void, undefined> {
  const position: NotificationPosition = { after: options.after };
  let failures = 0;
  while (!options.signal?.aborted) {
    const delivered = position.after;
    const connection = notificationConnection(options, position);
    let retryAfterMs = 0;
    try {
      for (;;) {
        const next = await connection.next();
        if (next.done) {
          retryAfterMs = next.value;
          break;
        }
        if (next.value.type !== 'open') yield next.value;
      }
    } finally {
      await connection.return(0);
    }
    if (position.after !== delivered) failures = 0;
    await sleep(Math.max(retryAfterMs, backoffMs(failures++)), options.signal);
  }
}

/**
 * One connection of the player's stream, resuming after `position.after`: yields `open`, then its
 * frames, recording each notification's id (and the id the stream opens at) in `position` before
 * handing it over. Returns when the connection is over, with the server's Retry-After in ms.
 */
export async function* notificationConnection(options: FollowNotificationsOptions, position: NotificationPosition): AsyncGenerator<NotificationStreamItem, number, undefined> {
  const connection = connectSse({
    url: `${options.baseUrl.replace(/\/+$/, '')}/v1/users/${encodeURIComponent(options.userId)}/notifications/stream`,
    apiKey: options.apiKey,
    lastEventId: position.after,
    signal: options.signal,
    fetch: options.fetch,
    heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS,
  });
  try {
    for (;;) {
      const next = await connection.next();
      if (next.done) return next.value;
      const item = next.value;
      if (item.kind === 'open') yield { type: 'open' };
      // Opened without a resume id, the stream names the player's latest notification first.
      else if (item.kind === 'position') position.after ??= item.id;
      else if (item.message.event === 'notification' && item.message.id !== undefined) {
        position.after = item.message.id;
        yield { type: 'notification', notification: JSON.parse(item.message.data) as Notification };
      } else if (item.message.event === 'notifications.read') {
        yield { type: 'notifications.read', ...(JSON.parse(item.message.data) as NotificationsRead) };
      }
      // Any other event is one a newer service sends that this client does not know: skipped.
    }
  } finally {
    await connection.return(0);
  }
}
