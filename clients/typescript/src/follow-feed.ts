import { GuildhallError } from './errors.js';
import type { OkBody, Operation } from './path-types.js';
import { SseParser } from './sse-parser.js';

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

const HEARTBEAT_TIMEOUT_MS = 75_000;
const MAX_DELAY_MS = 30_000;
/** Answers worth trying again: the service is overloaded, rate limited or briefly unavailable. */
const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);

/** Exponential backoff with jitter: at most 0.25 s after the first failure, doubling, never over 30 s. */
const backoffMs = (failures: number) => Math.min(MAX_DELAY_MS, 250 * 2 ** failures) * (0.5 + Math.random() / 2);

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The error of a non-200 answer, its body read as the envelope when it is JSON. */
async function errorOf(response: Response): Promise<GuildhallError> {
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not the envelope: GuildhallError reports the status alone
  }
  return GuildhallError.fromResponse(response, body);
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

/**
 * One connection: yields its events, recording each in `position` before handing it over. Returns
 * when the connection is over, with the server's Retry-After in ms (0 when it gave none).
 */
async function* connect(options: FollowFeedOptions, position: { after: string | undefined }): AsyncGenerator<FeedEvent, number, undefined> {
  const connection = new AbortController();
  const abort = () => connection.abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  const timeoutMs = options.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS;
  let watchdog = setTimeout(abort, timeoutMs);
  const alive = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(abort, timeoutMs);
  };
  try {
    let response: Response;
    try {
      response = await (options.fetch ?? globalThis.fetch)(feedUrl(options, position.after), {
        headers: { authorization: `Bearer ${options.apiKey}`, accept: 'text/event-stream' },
        signal: connection.signal,
      });
    } catch {
      return 0;
    }
    if (!response.ok || !response.body) {
      const error = await errorOf(response);
      if (!RETRYABLE.has(response.status)) throw error;
      return (error.retryAfter ?? 0) * 1000;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    try {
      for (;;) {
        // A read fails when the connection breaks or is aborted: either way this connection is over.
        const chunk = await reader.read().catch(() => null);
        if (chunk === null || chunk.done) return 0;
        alive();
        const messages = parser.push(decoder.decode(chunk.value, { stream: true }));
        // A stream opened without `after` names where it starts before any event: from then on a
        // reconnection resumes there, so what happens while it is down is replayed, not lost.
        if (position.after === undefined && parser.lastEventId !== undefined && !messages.length) position.after = parser.lastEventId;
        for (const message of messages) {
          if (message.id === undefined) continue;
          const event = JSON.parse(message.data) as FeedEvent;
          position.after = message.id;
          // The consumer's time with an event is not the server's silence.
          clearTimeout(watchdog);
          yield event;
          alive();
        }
      }
    } finally {
      reader.cancel().catch(() => undefined);
    }
  } finally {
    clearTimeout(watchdog);
    options.signal?.removeEventListener('abort', abort);
    connection.abort();
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
