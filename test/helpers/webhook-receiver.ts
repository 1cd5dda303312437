/** The plumbing shared by the e2e webhook receivers: a local HTTP server, and which process sent a request. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  server: Server;
  port: number;
  /** http://<host>:<port>/hook */
  url: string;
  /** Drops open connections, then stops listening. */
  close(): Promise<void>;
}

/** Serves `handler` on an ephemeral port of `host` (loopback unless a suite's hosts are elsewhere). */
export async function listenLocal(handler: RequestListener, host = '127.0.0.1'): Promise<LocalServer> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `http://${host}:${port}/hook`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * Which of `pids` owns the client end of the TCP connection 127.0.0.1:localPort -> :serverPort:
 * the socket inode from /proc/net/tcp, then the process whose fd table holds it (null elsewhere).
 */
export function socketOwner(localPort: number, serverPort: number, pids: number[]): number | null {
  let inode: string | null = null;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      if (parseInt(f[1].split(':').pop()!, 16) === localPort && parseInt(f[2].split(':').pop()!, 16) === serverPort) inode = f[9];
    }
    if (inode) break;
  }
  if (!inode) return null;
  const target = `socket:[${inode}]`;
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return pid;
      } catch {
        // the fd closed meanwhile
      }
    }
  }
  return null;
}

/** One request as a receiver saw it: the raw body is what signatures cover. */
export interface ReceivedDelivery {
  headers: Record<string, string>;
  raw: string;
  body: Record<string, unknown>;
}

export interface RecordingReceiver extends LocalServer {
  received: ReceivedDelivery[];
}

/** A receiver that records every request and answers `respond(nth)` (1-based), 200 by default. */
export async function recordingReceiver(respond: (nth: number) => number = () => 200): Promise<RecordingReceiver> {
  const received: ReceivedDelivery[] = [];
  const local = await listenLocal((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers as Record<string, string>, raw, body: JSON.parse(raw) as Record<string, unknown> });
      res.writeHead(respond(received.length), { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { ...local, received };
}
