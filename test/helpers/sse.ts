/** An SSE client over node:http reading the raw stream, for the event feed's e2e tests. */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comments: string[];
}

export interface SseStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body of a non-200 answer (the error envelope). */
  body: Record<string, unknown> | null;
  frames: SseFrame[];
  /** Ids of the event frames (those with data), in arrival order. */
  ids(): string[];
  /** Resolves once `cond` holds, checking at every chunk. */
  waitFor(cond: () => boolean, ms: number, what: string): Promise<void>;
  /** Calls `listener` now (frames may have arrived already) and after every chunk received. */
  onData(listener: () => void): void;
  /** Resolves when the response ends or breaks. */
  ended: Promise<void>;
  close(): void;
}

function parseFrame(raw: string): SseFrame {
  const f: SseFrame = { comments: [] };
  for (const line of raw.split('\n')) {
    if (line.startsWith(':')) f.comments.push(line);
    else if (line.startsWith('id: ')) f.id = line.slice(4);
    else if (line.startsWith('event: ')) f.event = line.slice(7);
    else if (line.startsWith('data: ')) f.data = line.slice(6);
  }
  return f;
}

/** Opens `GET <base><path>`; resolves with the headers of a 200, or the whole answer of anything else. */
export function openSse(base: string, path: string, headers: Record<string, string>): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { agent: false, headers: { accept: 'text/event-stream', ...headers } });
    req.on('error', reject);
    req.on('response', (res) => {
      const listeners = new Set<() => void>();
      let buf = '';
      let text = '';
      let done!: () => void;
      const ended = new Promise<void>((r) => (done = r));
      const s: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: null,
        frames: [],
        ids: () => s.frames.filter((f) => f.id !== undefined && f.data !== undefined).map((f) => f.id!),
        ended,
        waitFor: (cond, ms, what) =>
          new Promise<void>((ok, fail) => {
            const check = () => {
              if (!cond()) return;
              clearTimeout(timer);
              listeners.delete(check);
              ok();
            };
            const timer = setTimeout(() => {
              listeners.delete(check);
              fail(new Error(`stream: ${what} not seen within ${ms} ms (${s.ids().length} events)`));
            }, ms);
            listeners.add(check);
            check();
          }),
        onData: (listener) => {
          listeners.add(listener);
          listener();
        },
        close: () => req.destroy(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          s.frames.push(parseFrame(buf.slice(0, i)));
          buf = buf.slice(i + 2);
        }
        listeners.forEach((l) => l());
      });
      res.on('close', done);
      res.on('error', done);
      if (s.status === 200) return resolve(s);
      void ended.then(() => {
        try {
          s.body = JSON.parse(text);
        } catch {
          s.body = null;
        }
        resolve(s);
      });
    });
    req.end();
  });
}
