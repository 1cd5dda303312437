import { GuildhallError } from './errors.js';
import { isPosition, SseParser, type SseMessage } from './sse-parser.js';

/** What one connection of a stream yields: its opening, its messages, and the ids of id-only frames. */
export type SseItem =
  | { kind: 'open' }
  | { kind: 'message'; message: SseMessage }
  /** A frame with an id and no data: how a live-only stream names where it starts. */
  | { kind: 'position'; id: string };

export interface SseRequest {
  url: string;
  apiKey: string;
  /** Sent as `Last-Event-ID`: where the stream resumes (an EventSource sends it on reconnection). */
  lastEventId?: string;
  /** Aborting ends the connection (no error). */
  signal?: AbortSignal;
  fetch?: typeof globalThis.fetch;
  /** Silence (no frame, no heartbeat) after which the connection is taken for dead. */
  heartbeatTimeoutMs: number;
}

/** The server sends a heartbeat every 30 s: a connection silent for 75 s is dead. */
export const HEARTBEAT_TIMEOUT_MS = 75_000;
const MAX_DELAY_MS = 30_000;
/** Answers worth trying again: the service is overloaded, rate limited or briefly unavailable. */
const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);

/** Exponential backoff with jitter: at most 0.25 s after the first failure, doubling, never over 30 s. */
export const backoffMs = (failures: number) => Math.min(MAX_DELAY_MS, 250 * 2 ** failures) * (0.5 + Math.random() / 2);

/** Whether a failed answer may succeed later, unchanged. */
export const isRetryable = (status: number) => RETRYABLE.has(status);

export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
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
 * One connection of a Server-Sent Events stream of the service: yields `open` once the answer is
 * 200, then its frames. Returns when the connection is over (dropped, silent past the heartbeat
 * timeout, aborted), with the server's Retry-After in ms (0 when it gave none). An answer that
 * cannot succeed by waiting (400, 401, 410…) throws `GuildhallError`; 429 and 5xx return.
 */
export async function* connectSse(request: SseRequest): AsyncGenerator<SseItem, number, undefined> {
  const connection = new AbortController();
  const abort = () => connection.abort();
  request.signal?.addEventListener('abort', abort, { once: true });
  let watchdog = setTimeout(abort, request.heartbeatTimeoutMs);
  const alive = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(abort, request.heartbeatTimeoutMs);
  };
  try {
    let response: Response;
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${request.apiKey}`, accept: 'text/event-stream' };
      if (request.lastEventId !== undefined) headers['last-event-id'] = request.lastEventId;
      response = await (request.fetch ?? globalThis.fetch)(request.url, { headers, signal: connection.signal });
    } catch {
      return 0;
    }
    if (!response.ok || !response.body) {
      const error = await errorOf(response);
      if (!isRetryable(response.status)) throw error;
      return (error.retryAfter ?? 0) * 1000;
    }
    // The consumer's time with an item is not the server's silence.
    clearTimeout(watchdog);
    yield { kind: 'open' };
    alive();
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    try {
      for (;;) {
        // A read fails when the connection breaks or is aborted: either way this connection is over.
        const chunk = await reader.read().catch(() => null);
        if (chunk === null || chunk.done) return 0;
        alive();
        const frames = parser.push(decoder.decode(chunk.value, { stream: true }));
        const items = frames.map((f): SseItem => (isPosition(f) ? { kind: 'position', id: f.position } : { kind: 'message', message: f }));
        for (const item of items) {
          clearTimeout(watchdog);
          yield item;
          alive();
        }
      }
    } finally {
      reader.cancel().catch(() => undefined);
    }
  } finally {
    clearTimeout(watchdog);
    request.signal?.removeEventListener('abort', abort);
    connection.abort();
  }
}
