/** A raw live-stream (SSE) client over node:http, for e2e tests against a server process. */
import { request as httpRequest } from 'node:http';

export interface StreamFrame {
  id?: string;
  event?: string;
  data?: string;
  /** When the chunk that completed the frame arrived, on the `now` clock given to subscribe. */
  at: number;
}

export interface StreamClient {
  frames: StreamFrame[];
  until(cond: (frames: StreamFrame[]) => boolean, timeoutMs: number, what: string): Promise<void>;
  close(): void;
}

export interface StreamOptions {
  /** The clock that stamps `at`. */
  now: () => number;
  /** Ends the request with an error after this long without data. */
  idleTimeoutMs?: number;
}

/** Opens GET /v1/events/:groupId (the game's stream, GET /v1/events, when null) and resolves once the 200 headers arrived. */
export function subscribe(base: string, key: string, groupId: string | null, options: StreamOptions): Promise<StreamClient> {
  return new Promise((resolve, reject) => {
    const frames: StreamFrame[] = [];
    const listeners = new Set<() => void>();
    const req = httpRequest(`${base}/v1/events${groupId === null ? '' : `/${groupId}`}`, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`stream handshake: ${res.statusCode}`));
        return;
      }
      let buf = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        const at = options.now();
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const frame: StreamFrame = { at };
          for (const line of block.split('\n')) {
            const m = /^(id|event|data): ?(.*)$/.exec(line);
            if (m) frame[m[1] as 'id' | 'event' | 'data'] = m[2];
          }
          // As EventSource: a block without data (the id-only frame a live-only stream opens with) is no event.
          if (frame.data !== undefined) frames.push(frame);
        }
        listeners.forEach((l) => l());
      });
      resolve({
        frames,
        close: () => req.destroy(),
        until: (cond, timeoutMs, what) =>
          new Promise<void>((res2, rej2) => {
            const check = () => {
              if (!cond(frames)) return;
              clearTimeout(timer);
              listeners.delete(check);
              res2();
            };
            const timer = setTimeout(() => {
              listeners.delete(check);
              rej2(new Error(`stream: ${what} not seen within ${timeoutMs} ms (${frames.length} frames)`));
            }, timeoutMs);
            listeners.add(check);
            check();
          }),
      });
    });
    const idle = options.idleTimeoutMs;
    if (idle !== undefined) req.setTimeout(idle, () => req.destroy(new Error(`stream: no data for ${idle / 1000} s`)));
    req.on('error', reject);
    req.end();
  });
}
