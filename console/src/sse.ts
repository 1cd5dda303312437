// The client package's parser: one reading of the event-stream format for both.
import { isPosition, SseParser, type SseMessage } from '../../clients/typescript/src/sse-parser';
import { authHeaders, failureOf, withQuery } from './api';

export type { SseMessage };

/**
 * Follows a stream of the admin API until `signal` aborts. EventSource cannot send the token in a
 * header, so this reads it with fetch; after a drop it reconnects from the last id it received
 * (before any event, the one the stream opened with), as EventSource would.
 */
export async function follow(
  path: string,
  signal: AbortSignal,
  onMessage: (m: SseMessage) => void,
  onState: (state: 'connecting' | 'live' | 'retrying', detail?: unknown) => void,
): Promise<void> {
  let after: string | undefined;
  while (!signal.aborted) {
    onState('connecting');
    try {
      const res = await fetch(withQuery(path, { after }), { headers: { accept: 'text/event-stream', ...authHeaders() }, signal, cache: 'no-store' });
      if (!res.ok || !res.body) throw await failureOf(res, true);
      onState('live');
      const parser = new SseParser();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const frame of parser.push(value)) {
          // The last event's id, or before any event the id the stream opened with (where it began).
          if (isPosition(frame)) after = frame.position;
          else {
            after = frame.id ?? after;
            onMessage(frame);
          }
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      onState('retrying', err);
      if ((err as { status?: number }).status === 401) return;
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
}
