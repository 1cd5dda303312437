import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, sleep } from '../helpers/process';
import { listenLocal, type LocalServer } from '../helpers/webhook-receiver';
import { caseContext, createGame, expectStatus, startInstance, type Instance } from './helpers/service';

/**
 * Soak (issue 18.7): steady mixed traffic for SOAK_MINUTES (3 by default) against one instance with 200
 * live-stream subscribers, a webhook receiver, and one stream client that never reads. After the
 * first third (the warm-up) what a full collection leaves live (heap and native buffers) does not
 * grow by 10%, its event loop stays
 * responsive (delay p99 < 50 ms), its handles do not grow, and the client that never reads is cut
 * off once its buffer passes the bound instead of being held in memory. Figures are printed.
 */

const MINUTES = Number(process.env.SOAK_MINUTES || 3);
const SUBSCRIBERS = 200;
const GROUPS = 20;
const WORKERS = 8;
/** Member metadata of this size makes each member.updated frame large. */
const METADATA_BYTES = 10_000;
/**
 * Sent to the stalled client before the traffic starts, in 1 MiB frames: more than the kernel can
 * hold for a socket nobody reads (on loopback its receive buffer grows up to tcp_rmem's maximum,
 * 32 MiB here, plus up to 4 MiB on the sending side), so the server's own bound is always reached.
 */
const STALL_BURST_MB = 48;
/** The server's bound on what it holds for one stream (stream-subscriber.ts), plus the frame that passes it. */
const STREAM_BOUND_MB = 4 + 1;
/** Each worker's pace: a soak is steady traffic, not the most the machine can take. */
const REQUEST_EVERY_MS = 100;

interface Sample {
  at: number;
  rss: number;
  heapUsed: number;
  delayP99Ms: number;
  delayMaxMs: number;
  steadyDelayP99Ms: number;
  utilization: number;
  handles: number;
  socketBufferedBytes: number;
  socketBufferedMaxBytes: number;
}

/**
 * A stream client over node:http that counts the frames it reads: the blank lines that end them,
 * found in the raw bytes (a frame's end may straddle two chunks). It neither decodes nor splits: the
 * 200 of them share the machine's 2 cores with the service under test, so they must cost little.
 */
function subscriber(base: string, key: string, path: string): Promise<{ frames: () => number; closed: () => boolean; close(): void }> {
  return new Promise((resolve, reject) => {
    let frames = 0;
    let closed = false;
    let endsWithNewline = false;
    const req = httpRequest(`${base}${path}`, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream ${path}: ${res.statusCode}`));
      res.on('data', (chunk: Buffer) => {
        if (endsWithNewline && chunk[0] === 0x0a) frames++;
        for (let i = chunk.indexOf('\n\n'); i !== -1; i = chunk.indexOf('\n\n', i + 2)) frames++;
        endsWithNewline = chunk[chunk.length - 1] === 0x0a && chunk[chunk.length - 2] !== 0x0a;
      });
      res.on('close', () => (closed = true));
      resolve({ frames: () => frames, closed: () => closed, close: () => req.destroy() });
    });
    req.on('error', () => (closed = true));
    req.end();
  });
}

/**
 * Opens the game's stream on a raw socket and stops reading from it: the kernel's buffers fill,
 * then the server's. A paused socket does not notice being closed, so `drain()` reads again and
 * resolves once the server's end of it is seen (with the bytes that were still on the way), or
 * with null if the stream is still open after `timeoutMs`.
 */
function stalledClient(port: number, key: string): Promise<{ drain(timeoutMs: number): Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    let closed = false;
    const socket: Socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nAccept: text/event-stream\r\n\r\n`);
      socket.once('data', (chunk) => {
        if (!chunk.toString('latin1').startsWith('HTTP/1.1 200')) return reject(new Error(`stalled client: ${chunk.toString('latin1').slice(0, 80)}`));
        socket.pause();
        resolve({
          drain: (timeoutMs) =>
            new Promise((done) => {
              const timer = setTimeout(() => (socket.destroy(), done(null)), timeoutMs);
              const end = () => (clearTimeout(timer), done(bytes));
              if (closed) return end();
              socket.on('data', (c: Buffer) => (bytes += c.length));
              socket.once('close', end);
              socket.resume();
            }),
        });
      });
    });
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
  });
}

interface Live {
  rss: number;
  heapUsed: number;
  external: number;
}

/** Marks the end of the traffic and waits for the sampler's record of what stays live at both marks. */
async function liveAtMarks(samplesFile: string): Promise<{ steady: Live; end: Live }> {
  writeFileSync(`${samplesFile}.end`, '');
  for (let waited = 0; waited < 10_000; waited += 250) {
    const lines = existsSync(`${samplesFile}.marks`) ? readFileSync(`${samplesFile}.marks`, 'utf8').trim().split('\n') : [];
    const marks = Object.fromEntries(lines.filter(Boolean).map((l) => JSON.parse(l) as Live & { mark: string }).map((m) => [m.mark, m]));
    if (marks.steady && marks.end) return { steady: marks.steady, end: marks.end };
    await sleep(250);
  }
  throw new Error('the sampler did not record what stays live at the warm-up and at the end');
}

const mb = (bytes: number) => +(bytes / 2 ** 20).toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

describe('soak', () => {
  let ctx: Awaited<ReturnType<typeof caseContext>>;
  let svc: Instance | undefined;
  let receiver: LocalServer | undefined;
  let dir: string;

  afterAll(async () => {
    await svc?.stop();
    await receiver?.close();
    await ctx?.done();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it(`${MINUTES} min of mixed traffic with ${SUBSCRIBERS} subscribers: memory, event loop and handles hold steady; a client that never reads is cut off`, async () => {
    ctx = await caseContext();
    dir = mkdtempSync(join(tmpdir(), 'gh-soak-'));
    const samplesFile = join(dir, 'samples.jsonl');
    let delivered = 0;
    receiver = await listenLocal((req, res) => {
      req.resume();
      req.on('end', () => {
        delivered++;
        res.end('ok');
      });
    });
    svc = await startInstance(ctx.db, {
      LOG_LEVEL: 'warn',
      NODE_OPTIONS: `--require ${join(__dirname, 'helpers', 'runtime-sampler.cjs')}`,
      SOAK_SAMPLE_FILE: samplesFile,
    });
    const { base, port } = svc;
    const game = await createGame(base, 'soak', ctx.secrets);
    const auth = { authorization: `Bearer ${game.key}` };
    ctx.secrets.add((await expectStatus(http(`${base}/v1/webhooks`, { method: 'POST', headers: auth, body: { url: receiver.url } }), 201)).body.secret);
    const groups: string[] = [];
    for (let i = 0; i < GROUPS; i++) {
      groups.push((await expectStatus(http(`${base}/v1/groups`, { method: 'POST', headers: auth, body: { kind: 'guild', name: `soak ${i}`, visibility: 'public' } }), 201)).body.id);
    }
    // The client that never reads follows a second game's stream, which a burst fills: the soak's
    // own feed reads (of the first game) are not made to carry the burst's 48 MiB.
    const stallGame = await createGame(base, 'soak-stall', ctx.secrets);
    const stallAuth = { authorization: `Bearer ${stallGame.key}` };
    const stallGroup = (await expectStatus(http(`${base}/v1/groups`, { method: 'POST', headers: stallAuth, body: { kind: 'guild', name: 'stall', visibility: 'public' } }), 201)).body.id;
    await expectStatus(http(`${base}/v1/groups/${stallGroup}/join`, { method: 'POST', headers: stallAuth, body: { userId: 'stall-probe' } }), 201);
    const stalled = await stalledClient(port, stallGame.key);
    for (let i = 0; i < STALL_BURST_MB; i++) {
      const body = { metadata: { i, blob: 'y'.repeat(2 ** 20) } };
      await expectStatus(http(`${base}/v1/groups/${stallGroup}/members/stall-probe`, { method: 'PATCH', headers: stallAuth, body }), 200);
    }
    const streams = await Promise.all(
      Array.from({ length: SUBSCRIBERS }, (_, i) => subscriber(base, game.key, i % 2 ? '/v1/events' : `/v1/events/${groups[i % GROUPS]}`)),
    );

    // Mixed traffic: joins, metadata updates, leaves, reads, friend requests; every answer counted.
    const statuses = new Map<number, number>();
    const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
    const metadata = { blob: 'x'.repeat(METADATA_BYTES) };
    const endAt = Date.now() + MINUTES * 60_000;
    const warmUpEnd = Date.now() + (MINUTES * 60_000) / 3;
    let n = 0;
    const steadyMark = setTimeout(() => writeFileSync(`${samplesFile}.steady`, ''), warmUpEnd - Date.now());
    const worker = async (w: number) => {
      while (Date.now() < endAt) {
        const group = groups[n % GROUPS];
        const user = `w${w}-u${n++ % 50}`;
        const call = async (method: string, path: string, body?: unknown) => {
          const started = Date.now();
          const r = await http(`${base}${path}`, { method, headers: auth, body });
          count(r.status);
          await sleep(REQUEST_EVERY_MS - (Date.now() - started));
          return r;
        };
        await call('POST', `/v1/groups/${group}/join`, { userId: user });
        await call('PATCH', `/v1/groups/${group}/members/${user}`, { metadata });
        await call('GET', `/v1/groups/${group}/members?limit=20`);
        await call('POST', `/v1/groups/${group}/leave`, { userId: user });
        const sent = await call('POST', `/v1/users/${user}/friend-requests`, { targetSvcUserId: `${user}-friend` });
        if (sent.status === 201 && sent.body.request) await call('POST', `/v1/friend-requests/${sent.body.request.id}/accept`);
        await call('DELETE', `/v1/users/${user}/friends/${user}-friend`);
        await call('GET', `/v1/events/feed?limit=50`);
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    clearTimeout(steadyMark);
    await sleep(2_000);
    const stalledBytes = await stalled.drain(20_000);
    const live = await liveAtMarks(samplesFile);

    const samples = readFileSync(samplesFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Sample);
    const steady = samples.filter((s) => s.at >= warmUpEnd);
    // Medians of 30 one-second samples: a leak raises the floor; a garbage-collection spike does not count.
    const first = steady.slice(0, 30);
    const last = steady.slice(-30);
    const figures = {
      minutes: MINUTES,
      requests: [...statuses.values()].reduce((a, b) => a + b, 0),
      statuses: Object.fromEntries(statuses),
      webhookDeliveries: delivered,
      framesRead: streams.reduce((a, s) => a + s.frames(), 0),
      subscribersOpen: streams.filter((s) => !s.closed()).length,
      rssAfterWarmUpMb: +(median(first.map((s) => s.rss)) / 2 ** 20).toFixed(1),
      rssAtEndMb: +(median(last.map((s) => s.rss)) / 2 ** 20).toFixed(1),
      liveHeapAfterWarmUpMb: mb(live.steady.heapUsed),
      liveHeapAtEndMb: mb(live.end.heapUsed),
      liveExternalAfterWarmUpMb: mb(live.steady.external),
      liveExternalAtEndMb: mb(live.end.external),
      rssAfterCollectingMb: [mb(live.steady.rss), mb(live.end.rss)],
      rssEvery15sMb: samples.filter((_, i) => i % 15 === 0).map((s) => Math.round(s.rss / 2 ** 20)),
      heapEvery15sMb: samples.filter((_, i) => i % 15 === 0).map((s) => Math.round(s.heapUsed / 2 ** 20)),
      unsentEvery15sMb: samples.filter((_, i) => i % 15 === 0).map((s) => +(s.socketBufferedBytes / 2 ** 20).toFixed(1)),
      unsentOneSocketMaxMb: +(Math.max(...samples.map((s) => s.socketBufferedMaxBytes)) / 2 ** 20).toFixed(1),
      eventLoopDelayP99Ms: +steady[steady.length - 1].steadyDelayP99Ms.toFixed(1),
      worstSecondDelayP99Ms: +Math.max(...steady.map((s) => s.delayP99Ms)).toFixed(1),
      eventLoopUtilization: +(steady.reduce((a, s) => a + s.utilization, 0) / steady.length).toFixed(2),
      eventLoopDelayMaxMs: +Math.max(...steady.map((s) => s.delayMaxMs)).toFixed(1),
      handlesAfterWarmUp: Math.round(median(first.map((s) => s.handles))),
      handlesAtEnd: Math.round(median(last.map((s) => s.handles))),
      stalledClientBytesLeftMb: stalledBytes === null ? null : +(stalledBytes / 2 ** 20).toFixed(1),
    };
    console.log(`soak figures: ${JSON.stringify(figures)}`);

    expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([]);
    expect(figures.subscribersOpen).toBe(SUBSCRIBERS);
    expect(figures.framesRead).toBeGreaterThan(SUBSCRIBERS);
    expect(delivered).toBeGreaterThan(0);
    // What a full collection leaves: a leak keeps what the traffic made. The one-second RSS and
    // heap samples are printed, not judged: they follow when V8 chooses to collect (the heap of a
    // 3-minute run climbs for two minutes at a time before a major collection).
    expect(figures.liveHeapAtEndMb).toBeLessThan(figures.liveHeapAfterWarmUpMb * 1.1);
    expect(figures.liveExternalAtEndMb).toBeLessThan(figures.liveExternalAfterWarmUpMb * 1.1 + 1);
    expect(figures.rssAfterCollectingMb[1]).toBeLessThan(figures.rssAfterCollectingMb[0] * 1.1);
    expect(figures.eventLoopDelayP99Ms).toBeLessThan(50);
    expect(figures.handlesAtEnd).toBeLessThanOrEqual(figures.handlesAfterWarmUp * 1.1 + 10);
    // Cut off: the server never held more than its bound for one socket; the client then read what
    // was still on the way (kernel buffers, and what the server had) and the end.
    expect(figures.unsentOneSocketMaxMb).toBeLessThanOrEqual(STREAM_BOUND_MB);
    expect(stalledBytes).not.toBeNull();
    expect(stalledBytes!).toBeLessThan(STALL_BURST_MB * 2 ** 20);
    expect(ctx.secrets.leaks(svc.logs())).toEqual([]);
    for (const s of streams) s.close();
  }, MINUTES * 60_000 + 180_000);
});
