import { createGuildhallClient, type GuildhallClient } from './client.js';
import type { ConsistencyTracker } from './consistency.js';
import { GuildhallError } from './errors.js';
import { notificationConnection, type FollowNotificationsOptions, type NotificationFrame, type NotificationPosition, type NotificationStreamItem } from './follow-notifications.js';
import { backoffMs, isRetryable, sleep } from './sse-connection.js';
import { UnreadTally, type CountedUpTo } from './unread-tally.js';

export interface FollowUnreadCountOptions extends Omit<FollowNotificationsOptions, 'after'> {
  /**
   * The tracker of the client your screen marks notifications read with: the counts read after a
   * reconnection then see those marks even from a read replica. By default the helper's own.
   */
  consistency?: ConsistencyTracker;
}

export interface UnreadCount {
  /** The player's unread notifications. */
  unread: number;
  /** The frame that changed it; absent when the counts were read (on each connection). */
  frame?: NotificationFrame;
}

type CountsAnswer = { unread: number; upTo: CountedUpTo | null } | { error: GuildhallError };

/**
 * One unread count for a player's badge, kept live from their notification stream across
 * reconnections (EXTENSIONS X9). It reads `GET …/notifications/counts` as each connection opens (so
 * marks made while it was away are seen; and the newest notification just before, to know which
 * frames the counts hold), then adds each unread notification and takes off what any device marks
 * read (see UnreadTally). Yields the count each time the counts answer, then with
 * every frame (`frame`: show the new notification, say). Reconnections resume with `Last-Event-ID`,
 * so no notification is missed or counted twice; a resume id no longer kept (410 `events_expired`)
 * starts the stream again without one, and the counts are read again as always. A wrong key (401)
 * throws `GuildhallError`; 429, 5xx and dropped connections are retried with backoff.
 */
export async function* followUnreadCount(options: FollowUnreadCountOptions): AsyncGenerator<UnreadCount, void, undefined> {
  const client = createGuildhallClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, fetch: options.fetch, consistency: options.consistency });
  const tally = new UnreadTally();
  const position: NotificationPosition = { after: undefined };
  let failures = 0;
  while (!options.signal?.aborted) {
    const delivered = position.after;
    let retryAfterMs = 0;
    try {
      retryAfterMs = yield* countedConnection(options, client, tally, position);
    } catch (err) {
      if (!(err instanceof GuildhallError && err.code === 'events_expired')) throw err;
      // The last notification is gone (dismissed, swept): live again from now, counts read again.
      position.after = undefined;
      continue;
    }
    if (position.after !== delivered) failures = 0;
    await sleep(Math.max(retryAfterMs, backoffMs(failures++)), options.signal);
  }
}

/**
 * One connection: its counts read as it opens, raced against its frames, so that frames arriving
 * before the answer are known as such. Returns the Retry-After in ms when the connection (or its
 * counts) ended in a way worth retrying.
 */
async function* countedConnection(
  options: FollowUnreadCountOptions,
  client: GuildhallClient,
  tally: UnreadTally,
  position: NotificationPosition,
): AsyncGenerator<UnreadCount, number, undefined> {
  // Ends the connection, and the counts' request, when this one is over for any reason.
  const stop = new AbortController();
  const abort = () => stop.abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  const connection = notificationConnection({ ...options, signal: stop.signal }, position);
  // Each pending read is wrapped once, so that a race lost leaves no second promise to reject unseen.
  let frame: Promise<{ next: IteratorResult<NotificationStreamItem, number> }> | null = null;
  let counts: Promise<{ counts: CountsAnswer }> | null = null;
  const held: NotificationFrame[] = [];
  try {
    for (;;) {
      frame ??= connection.next().then((next) => ({ next }));
      const won = await (counts ? Promise.race([frame, counts]) : frame);
      if ('counts' in won) {
        counts = null;
        if ('error' in won.counts) {
          if (!isRetryable(won.counts.error.status)) throw won.counts.error;
          return (won.counts.error.retryAfter ?? 0) * 1000;
        }
        tally.counted(won.counts.unread, won.counts.upTo);
        yield { unread: tally.unread };
        for (const early of held.splice(0)) yield { unread: tally.unread, frame: early };
        continue;
      }
      frame = null;
      if (won.next.done) return won.next.value;
      const item = won.next.value;
      if (item.type === 'open') {
        tally.recount();
        counts = readCounts(client, options.userId, stop.signal).then((answer) => ({ counts: answer }));
        continue;
      }
      tally.apply(item);
      if (tally.awaitingCounts) held.push(item);
      else yield { unread: tally.unread, frame: item };
    }
  } finally {
    options.signal?.removeEventListener('abort', abort);
    stop.abort();
    // A frame still being read when this ends is not wanted: nor is its failure.
    frame?.catch(() => undefined);
    await connection.return(0);
  }
}

/**
 * The player's newest notification, then their unread count (in that order: what the list shows,
 * the counts hold), or the error that kept them; a request dropped is a 503 to retry.
 */
async function readCounts(client: GuildhallClient, userId: string, signal: AbortSignal): Promise<CountsAnswer> {
  const params = { path: { userId } };
  try {
    const newest = await client.GET('/v1/users/{userId}/notifications', { params: { ...params, query: { limit: 1 } }, signal });
    if (newest.error !== undefined || newest.data === undefined) return { error: GuildhallError.fromResponse(newest.response, newest.error) };
    const counts = await client.GET('/v1/users/{userId}/notifications/counts', { params, signal });
    if (counts.error !== undefined || counts.data === undefined) return { error: GuildhallError.fromResponse(counts.response, counts.error) };
    const [n] = newest.data.items;
    return { unread: counts.data.unread, upTo: n ? { createdAt: n.createdAt, id: n.id } : null };
  } catch {
    return { error: new GuildhallError({ status: 503, code: null, message: 'the counts request failed before an answer' }) };
  }
}
