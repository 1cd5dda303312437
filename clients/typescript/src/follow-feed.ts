import type { OkBody, Operation } from './path-types.js';
import { backoffMs, connectSse, HEARTBEAT_TIMEOUT_MS, sleep } from './sse-connection.js';

type FeedPage = OkBody<Operation<'/v1/events/feed', 'get'>>;

/** An event as the feed and webhooks carry it: the base fields, and its type's own fields beside them. */
export type FeedEvent = FeedPage['items'][number] & { readonly [field: string]: unknown };
export type FeedEventType = FeedEvent['type'];

export interface FollowFeedOptions {
  baseUrl: string;
  apiKey: string;
  /**
   * The id of the last event already handled: every retained event after it is replayed, then the
   * feed goes live. Without it the feed starts live, and a reconnection before the first event
   * resumes live too (what happened in between is not replayed): keep the last id durably and pass it.
   */
  after?: string;
  /** Only these event types (all when absent). */
  types?: readonly FeedEventType[];
  /** Aborting ends the iteration (no error) and closes the connection. */
  signal?: AbortSignal;
  fetch?: typeof globalThis.fetch;
  /**
   * Silence (no event, no heartbeat) after which the connection is taken for dead and replaced.
   * The server sends a heartbeat every 30 s. Default 75 s.
   */
  heartbeatTimeoutMs?: number;
}

/**
 * Every event of the game's feed (`GET /v1/events`, Server-Sent Events), live, across dropped
 * connections: each reconnection resumes after the last event delivered, so none is repeated or
 * skipped. Consecutive connections that deliver nothing back off up to 30 s. An answer that cannot
 * succeed by waiting (401, 400, 410 `events_expired` for an `after` past the retention window)
 * throws `GuildhallError`; 429 and 5xx are retried after their Retry-After.
 */
export async function* followFeed(options: FollowFeedOptions): AsyncGenerator<FeedEvent, void, undefined> {
  const { signal } = options;
  const position = { after: options.after };
  let failures = 0;
  while (!signal?.aborted) {
    const delivered = position.after;
    const retryAfterMs = yield* connect(options, position);
    if (position.after !== delivered) failures = 0;
    await sleep(Math.max(retryAfterMs, backoffMs(failures++)), signal);
  }
}

/** One connection: yields its events, recording each in `position` before handing it over. */
async function* connect(options: FollowFeedOptions, position: { after: string | undefined }): AsyncGenerator<FeedEvent, number, undefined> {
  const connection = connectSse({
    url: feedUrl(options, position.after),
    apiKey: options.apiKey,
    signal: options.signal,
    fetch: options.fetch,
    heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS,
  });
  try {
    for (;;) {
      const next = await connection.next();
      if (next.done) return next.value;
      const item = next.value;
      // A stream opened without `after` names where it starts before any event: from then on a
      // reconnection resumes there, so what happens while it is down is replayed, not lost.
      if (item.kind === 'position' && position.after === undefined) position.after = item.id;
      if (item.kind !== 'message' || item.message.id === undefined) continue;
      position.after = item.message.id;
      yield JSON.parse(item.message.data) as FeedEvent;
    }
  } finally {
    // The consumer may stop mid-connection: the connection closes with it.
    await connection.return(0);
  }
}

/** A string, not a URL: a browser page may give a relative baseUrl, as openapi-fetch allows. */
function feedUrl({ baseUrl, types }: FollowFeedOptions, after: string | undefined): string {
  const query = new URLSearchParams();
  if (after !== undefined) query.set('after', after);
  if (types?.length) query.set('types', types.join(','));
  const search = query.toString();
  return `${baseUrl.replace(/\/+$/, '')}/v1/events${search ? `?${search}` : ''}`;
}
