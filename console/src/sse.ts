import { authHeaders, failureOf, withQuery } from './api';

export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/**
 * Splits an event stream into messages. Fed decoded text in chunks that may end anywhere; comments
 * (the `:heartbeat` lines) yield nothing. Lines end with LF or CRLF, which is what the service
 * sends (a lone CR, which the format also allows, it never sends).
 */
export class SseParser {
  private buffer = '';
  private id: string | undefined;
  private event: string | undefined;
  private data: string[] = [];

  push(text: string): SseMessage[] {
    this.buffer += text;
    const lines = this.buffer.split('\n');
    // The last piece is an unfinished line: it waits for the next chunk.
    this.buffer = lines.pop() ?? '';
    const out: SseMessage[] = [];
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line === '') {
        if (this.data.length > 0) out.push({ id: this.id, event: this.event, data: this.data.join('\n') });
        this.data = [];
        this.event = undefined;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'data') this.data.push(value);
      else if (name === 'event') this.event = value;
      else if (name === 'id') this.id = value;
    }
    return out;
  }
}

/**
 * Follows a stream of the admin API until `signal` aborts. EventSource cannot send the token in a
 * header, so this reads it with fetch; after a drop it reconnects from the last id it received.
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
        for (const message of parser.push(value)) {
          if (message.id) after = message.id;
          onMessage(message);
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
