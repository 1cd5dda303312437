import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { SWEEP_EVERY_MS } from '../../src/sweeper/sweeper.service';
import { WORKER_BATCH } from '../../src/webhooks/delivery-window';
import { subscribe as subscribeStream, type StreamClient as Stream } from '../helpers/event-stream';
import { journalEvents } from '../helpers/journal';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { listenLocal, socketOwner, type LocalServer } from '../helpers/webhook-receiver';
import {
  freePort,
  http,
  killAll,
  MAIN_JS,
  requireBuild,
  serverEnv,
  sleep,
  spawnNode,
  TEST_ADMIN_TOKEN,
  waitForHttp,
  type HttpResult,
  type RunningServer,
} from '../helpers/process';

/**
 * Scale-out (issue 8, deliverable 3): two BUILT server processes (dist/src/main.js) on one
 * database, driven by real HTTP clients only, show what the README's "Several instances" section
 * promises: the live stream, permission answers and API-key revocations cross instances at once
 * (through NOTIFY); a webhook attempt is sent once, whichever instance claims it; the hourly
 * sweeper runs on one instance at a time; the rate limiter and the permission cache are per process.
 *
 * The sweeper's timer is hourly and there is no route to run it. So that the real timers of both
 * processes fire during the test, each process of the main pair is started with a preload
 * (NODE_OPTIONS=--require, a file written to a temporary directory by this test) that shortens
 * exactly the interval of SWEEP_EVERY_MS to SWEEP_TEST_MS and logs every tick, and when that tick's
 * run settles, to stderr. Nothing in src is changed or bypassed: the production sweep, its
 * advisory lock and its SQL run as they would every hour.
 */

jest.setTimeout(90_000);

const SWEEP_TEST_MS = 150;
/** sweeper.service.ts: `pg_try_advisory_xact_lock(7310422002)`; pg_locks splits a bigint key in two oids. */
const SWEEPER_LOCK = 7_310_422_002;
const LOCK_CLASSID = Math.floor(SWEEPER_LOCK / 2 ** 32);
const LOCK_OBJID = SWEEPER_LOCK % 2 ** 32;

const SECRET = 'scale-out-secret-0123456789abcdef';
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const enc = encodeURIComponent;

const PRELOAD = `'use strict';
// Test-only preload (scale-out.e2e-spec.ts): the hourly interval runs every SCALEOUT_EVERY_MS instead.
const hourly = Number(process.env.SCALEOUT_HOURLY_MS);
const every = Number(process.env.SCALEOUT_EVERY_MS);
const realSetInterval = globalThis.setInterval;
let ticks = 0;
globalThis.setInterval = function setInterval(fn, ms, ...args) {
  if (ms !== hourly || typeof fn !== 'function') return realSetInterval(fn, ms, ...args);
  process.stderr.write('[scale-out] hourly interval shortened to ' + every + ' ms\\n');
  return realSetInterval(() => {
    const i = ++ticks;
    process.stderr.write('[scale-out] tick ' + i + '\\n');
    Promise.resolve(fn(...args)).finally(() => process.stderr.write('[scale-out] settled ' + i + '\\n'));
  }, every);
};
`;

// ---------------------------------------------------------------------------------------------
// Servers: start with retries (another engineer may be rebuilding dist/ at that moment).
// ---------------------------------------------------------------------------------------------

/** Starts dist/src/main.js on a free port; a start that fails is killed and retried. */
async function startServer(db: TestDatabase, extra: Record<string, string>): Promise<RunningServer> {
  let last: unknown;
  for (let attempt = 1; attempt <= 4; attempt++) {
    const deadline = Date.now() + 60_000;
    while (!existsSync(MAIN_JS) && Date.now() < deadline) await sleep(250);
    const port = await freePort();
    const proc = spawnNode(MAIN_JS, [], serverEnv(db.url, port, extra));
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitForHttp(url, 25_000, proc);
      return { proc, port, url };
    } catch (e) {
      last = e;
      await proc.kill();
      await sleep(1_000 * attempt);
    }
  }
  throw last;
}

async function startPair(db: TestDatabase, extra: Record<string, string>): Promise<[RunningServer, RunningServer]> {
  const a = await startServer(db, extra);
  try {
    return [a, await startServer(db, extra)];
  } catch (e) {
    await a.proc.kill();
    throw e;
  }
}

async function ok(p: Promise<HttpResult>, status: number, what: string): Promise<HttpResult> {
  const r = await p;
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status} ${r.text}`);
  return r;
}

interface GameFixture {
  gameId: string;
  key: string;
}

async function newGame(base: string, name: string): Promise<GameFixture> {
  const g = await ok(http(`${base}/v1/admin/games`, { method: 'POST', headers: ADMIN, body: { name } }), 201, 'create game');
  const k = await ok(http(`${base}/v1/admin/games/${g.body.id}/api-keys`, { method: 'POST', headers: ADMIN }), 201, 'mint key');
  return { gameId: g.body.id, key: k.body.key };
}

async function newGroup(base: string, key: string, name = 'Scale'): Promise<string> {
  const r = await ok(
    http(`${base}/v1/groups`, { method: 'POST', headers: bearer(key), body: { kind: 'guild', name, visibility: 'public' } }),
    201,
    'create group',
  );
  return r.body.id;
}

let userSeq = 0;
const newUser = (p = 'player') => `${p}-${process.pid}-${++userSeq}`;

const joinGroup = (base: string, key: string, groupId: string, userId: string) =>
  ok(http(`${base}/v1/groups/${groupId}/join`, { method: 'POST', headers: bearer(key), body: { userId } }), 201, `join ${userId}`);

/** POST (or another method) with the game's key, expecting `status`. */
const send = (base: string, key: string, method: string, path: string, status: number, body?: unknown) =>
  ok(http(`${base}${path}`, { method, headers: bearer(key), body }), status, `${method} ${path}`);

/** A new role of the group (granting nothing yet), assigned to `userId`. */
async function assignedRole(base: string, key: string, groupId: string, userId: string, name: string): Promise<string> {
  const role = await send(base, key, 'POST', `/v1/groups/${groupId}/roles`, 201, { name, priority: 5 });
  await send(base, key, 'POST', `/v1/groups/${groupId}/members/${enc(userId)}/roles/${role.body.id}`, 200);
  return role.body.id;
}

type Check = { allowed: boolean; source: string; viaRoleId?: string };

async function check(base: string, key: string, userId: string, groupId: string, permission: string): Promise<Check> {
  const q = `userId=${enc(userId)}&groupId=${enc(groupId)}&permission=${enc(permission)}`;
  const r = await ok(http(`${base}/v1/permissions/check?${q}`, { headers: bearer(key) }), 200, 'permission check');
  return r.body;
}

/**
 * Polls `probe` every `everyMs` until `done`, at most `limitMs` after `since` (the moment the
 * change's response arrived); resolves with the delay until a response showed it.
 */
async function pollUntil<T>(
  since: number,
  probe: () => Promise<T>,
  done: (v: T) => boolean,
  what: string,
  limitMs = 1_000,
  everyMs = 3,
): Promise<{ delayMs: number; polls: number }> {
  let polls = 0;
  for (;;) {
    const value = await probe();
    polls++;
    const elapsed = performance.now() - since;
    if (done(value)) return { delayMs: elapsed, polls };
    if (elapsed > limitMs) throw new Error(`${what}: not seen within ${limitMs} ms (${polls} polls, last ${JSON.stringify(value)})`);
    await sleep(everyMs);
  }
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

/** The live stream of a group, frames stamped with performance.now(). */
const subscribe = (base: string, key: string, groupId: string) =>
  subscribeStream(base, key, groupId, { now: () => performance.now(), idleTimeoutMs: 30_000 });

// ---------------------------------------------------------------------------------------------
// A webhook receiver that answers 200 and records every request.
// ---------------------------------------------------------------------------------------------

interface Received {
  deliveryId: string;
  eventId: string;
  /** The server process that sent it (one of `watchPids`), when it could be told. */
  senderPid: number | null;
}

class Receiver {
  readonly requests: Received[] = [];
  /** pids of the server processes whose requests are attributed (Linux /proc). */
  watchPids: number[] = [];
  /** While set, requests are held open until it resolves, then answered 200. */
  gate: Promise<void> | null = null;
  /** Requests answered so far. */
  answered = 0;
  url = '';
  private port = 0;
  private local!: LocalServer;

  async start(): Promise<this> {
    this.local = await listenLocal((req, res) => void this.handle(req, res));
    this.port = this.local.port;
    this.url = this.local.url;
    return this;
  }

  close(): Promise<void> {
    return this.local.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume();
    await once(req, 'end');
    this.requests.push({
      deliveryId: String(req.headers['x-svc-delivery-id'] ?? ''),
      eventId: String(req.headers['x-svc-event-id'] ?? ''),
      senderPid: this.watchPids.length ? socketOwner(req.socket.remotePort ?? 0, this.port, this.watchPids) : null,
    });
    if (this.gate) await this.gate;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok', () => this.answered++);
  }
}

/** The value of `read` once it has not changed for `quietMs` (polled every 50 ms, for at most 15 s). */
async function settled(read: () => number, quietMs: number): Promise<number> {
  const deadline = Date.now() + 15_000;
  let value = read();
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    if (Date.now() > deadline) throw new Error(`not settled within 15 s (${value})`);
    await sleep(50);
    const now = read();
    if (now !== value) [value, since] = [now, Date.now()];
  }
  return value;
}

async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

// ---------------------------------------------------------------------------------------------

describe('scale-out: two server processes on one database', () => {
  let db: TestDatabase;
  let A: RunningServer;
  let B: RunningServer;
  let preloadDir = '';
  const streams: Stream[] = [];
  const receivers: Receiver[] = [];
  const clients: Client[] = [];
  /** Everything measured, printed once at the end. */
  const observed: Record<string, string> = {};

  beforeAll(async () => {
    requireBuild();
    preloadDir = mkdtempSync(join(tmpdir(), 'guildhall-scale-out-'));
    const preload = join(preloadDir, 'shorten-hourly-interval.js');
    writeFileSync(preload, PRELOAD);
    db = await createTestDatabase();
    [A, B] = await startPair(db, {
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
      LOG_LEVEL: 'info', // the sweeper reports what it removed at info
      NODE_OPTIONS: `--require ${preload}`,
      SCALEOUT_HOURLY_MS: String(SWEEP_EVERY_MS),
      SCALEOUT_EVERY_MS: String(SWEEP_TEST_MS),
    });
  });

  afterEach(async () => {
    streams.splice(0).forEach((s) => s.close());
    await Promise.all(clients.splice(0).map((c) => c.end().catch(() => undefined)));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  afterAll(async () => {
    await killAll();
    await db?.drop();
    if (preloadDir) rmSync(preloadDir, { recursive: true, force: true });
    if (Object.keys(observed).length) {
      console.log(`scale-out, observed across instances:\n${Object.entries(observed).map(([k, v]) => `  ${k}: ${v}`).join('\n')}`);
    }
  });

  // -------------------------------------------------------------------------------------------
  it('an event caused on one instance reaches a live-stream subscriber on the other, exactly once', async () => {
    const f = await newGame(A.url, 'stream');
    const groupId = await newGroup(A.url, f.key);
    const onB = await subscribe(B.url, f.key, groupId);
    const onA = await subscribe(A.url, f.key, groupId);
    streams.push(onA, onB);

    const u1 = newUser();
    await joinGroup(A.url, f.key, groupId, u1);
    const joinedAt = performance.now();
    await onB.until((fr) => fr.some((x) => x.event === 'member.joined'), 5_000, 'member.joined (caused on A) on B');
    const onBAt = onB.frames.find((x) => x.event === 'member.joined')!.at;
    await onA.until((fr) => fr.some((x) => x.event === 'member.joined'), 5_000, 'member.joined (caused on A) on A');

    // And the other way round: caused on B, heard on A.
    const u2 = newUser();
    await joinGroup(B.url, f.key, groupId, u2);
    const joined2At = performance.now();
    await onA.until((fr) => fr.filter((x) => x.event === 'member.joined').length === 2, 5_000, 'member.joined (caused on B) on A');
    const onAAt = onA.frames.filter((x) => x.event === 'member.joined')[1].at;
    await onB.until((fr) => fr.filter((x) => x.event === 'member.joined').length === 2, 5_000, 'both events on B');
    await sleep(300); // a duplicate would have arrived by now

    const published = (
      await db.query<{ id: string }>(`SELECT trim(id) AS id FROM ${journalEvents()} WHERE game_id = $1 AND type = 'member.joined'`, [f.gameId])
    )
      .map((r) => r.id)
      .sort();
    expect(published).toHaveLength(2);
    for (const s of [onA, onB]) {
      const got = s.frames.filter((x) => x.event === 'member.joined');
      expect(got.map((x) => x.id).sort()).toEqual(published);
      const bodies = got.map((x) => JSON.parse(x.data!));
      expect(bodies.map((b) => b.member.userId)).toEqual([u1, u2]);
      for (const [i, b] of bodies.entries()) {
        expect(b).toMatchObject({ id: got[i].id, type: 'member.joined', gameId: f.gameId, groupId });
      }
    }
    observed['stream A -> B'] = `frame on B ${ms(onBAt - joinedAt)} after the join's response on A (negative: before it)`;
    observed['stream B -> A'] = `frame on A ${ms(onAAt - joined2At)} after the join's response on B`;
  });

  // -------------------------------------------------------------------------------------------
  it('a permission grant and a revoke on A are seen by a check on B at once (B cached the old answer)', async () => {
    const f = await newGame(A.url, 'permissions');
    const groupId = await newGroup(A.url, f.key);
    const userId = newUser();
    await joinGroup(A.url, f.key, groupId, userId);
    const roleId = await assignedRole(A.url, f.key, groupId, userId, 'officer');
    await sleep(200); // the arrangement's own NOTIFYs reach B before its cache is warmed

    const P = 'guild.kick';
    const DEFAULT: Check = { allowed: false, source: 'default' };
    const VIA_ROLE: Check = { allowed: true, source: 'role', viaRoleId: roleId };

    // Warm B, then prove B answers from its cache: a grant written straight in SQL (which
    // notifies nobody) leaves B's answer stale. Undone before the real change.
    expect(await check(B.url, f.key, userId, groupId, P)).toStrictEqual(DEFAULT);
    await db.query(`INSERT INTO role_permissions (role_id, permission) VALUES ($1, $2)`, [roleId, P]);
    expect(await check(B.url, f.key, userId, groupId, P)).toStrictEqual(DEFAULT);
    await db.query(`DELETE FROM role_permissions WHERE role_id = $1 AND permission = $2`, [roleId, P]);

    await send(A.url, f.key, 'POST', `/v1/roles/${roleId}/permissions`, 200, { permission: P }); // grant on A
    const granted = await pollUntil(
      performance.now(),
      () => check(B.url, f.key, userId, groupId, P),
      (c) => JSON.stringify(c) === JSON.stringify(VIA_ROLE),
      'the grant on B',
    );
    expect(await check(B.url, f.key, userId, groupId, P)).toStrictEqual(VIA_ROLE); // and it stays

    await ok(http(`${A.url}/v1/roles/${roleId}/permissions/${enc(P)}`, { method: 'DELETE', headers: bearer(f.key) }), 200, 'revoke on A');
    const revoked = await pollUntil(
      performance.now(),
      () => check(B.url, f.key, userId, groupId, P),
      (c) => JSON.stringify(c) === JSON.stringify(DEFAULT),
      'the revoke on B',
    );
    expect(await check(B.url, f.key, userId, groupId, P)).toStrictEqual(DEFAULT);

    expect(granted.delayMs).toBeLessThan(1_000);
    expect(revoked.delayMs).toBeLessThan(1_000);
    observed['permission grant on A, seen on B'] = `${ms(granted.delayMs)} after the grant's response (${granted.polls} checks)`;
    observed['permission revoke on A, seen on B'] = `${ms(revoked.delayMs)} after the revoke's response (${revoked.polls} checks)`;
  });

  // -------------------------------------------------------------------------------------------
  it('an API-key revocation on A is effective on B at once (B cached the key)', async () => {
    const f = await newGame(A.url, 'keys');
    const minted = await ok(http(`${A.url}/v1/admin/games/${f.gameId}/api-keys`, { method: 'POST', headers: ADMIN }), 201, 'mint');
    const doomed: string = minted.body.key;
    const doomedId: string = minted.body.id;
    const whoami = (base: string, key: string) => http(`${base}/v1/whoami`, { headers: bearer(key) });

    // Warm B's key cache, then prove B answers from it: a revocation written straight in SQL
    // (which notifies nobody) is not seen by B. Undone before the real revocation.
    expect((await whoami(B.url, doomed)).status).toBe(200);
    await db.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [doomedId]);
    expect((await whoami(B.url, doomed)).status).toBe(200);
    await db.query(`UPDATE api_keys SET revoked_at = NULL WHERE id = $1`, [doomedId]);

    const revokePath = `${A.url}/v1/admin/games/${f.gameId}/api-keys/${doomedId}/revoke`;
    const r = await ok(http(revokePath, { method: 'POST', headers: ADMIN }), 200, 'revoke on A');
    expect(r.body.revokedAt).toEqual(expect.any(String));
    const seen = await pollUntil(
      performance.now(),
      () => whoami(B.url, doomed),
      (res) => res.status === 401,
      'the revocation on B',
    );
    const after = await whoami(B.url, doomed);
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'invalid_api_key', status: 401 });
    expect((await whoami(A.url, doomed)).status).toBe(401);
    // Only that key: the game's other key still works on both.
    expect((await whoami(B.url, f.key)).status).toBe(200);
    expect((await whoami(A.url, f.key)).status).toBe(200);

    expect(seen.delayMs).toBeLessThan(1_000);
    observed['API-key revocation on A, effective on B'] = `${ms(seen.delayMs)} after the revocation's response (${seen.polls} requests)`;
  });

  // -------------------------------------------------------------------------------------------
  it('120 events caused alternately through A and B: every delivery received exactly once, answered 200', async () => {
    const rx = await new Receiver().start();
    receivers.push(rx);
    rx.watchPids = [A.proc.pid, B.proc.pid];
    const f = await newGame(A.url, 'deliveries');
    const groupId = await newGroup(A.url, f.key);
    const hook = await send(B.url, f.key, 'POST', '/v1/webhooks', 201, { url: rx.url, secret: SECRET });
    const endpointId: string = hook.body.id;

    type Row = { id: string; eventId: string; status: string; attempts: number; lastStatus: number | null };
    const rows = () =>
      db.query<Row>(
        `SELECT id, trim(event_id) AS "eventId", status, attempts, last_status AS "lastStatus"
         FROM webhook_deliveries WHERE endpoint_id = $1`,
        [endpointId],
      );

    // 1. Events 1-119, alternately through A and B, 6 joins in flight, while the receiver holds every
    //    request open: the worker that took up the endpoint's position sends its batch (at most its
    //    window) and waits; the position is that batch's until its results are written. The other
    //    worker sends none of the batch: once the position's first event has waited a second it may
    //    send events after it (claims past a lease), at most its own window, each once.
    let release!: () => void;
    rx.gate = new Promise<void>((r) => (release = r));
    const N = 120;
    expect(N - 1).toBeGreaterThan(2 * WORKER_BATCH);
    const users = Array.from({ length: N }, () => newUser('hook'));
    let next = 0;
    const worker = async () => {
      while (next < N - 1) {
        const i = next++;
        await joinGroup(i % 2 === 0 ? A.url : B.url, f.key, groupId, users[i]);
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    await waitFor(() => rx.requests.length > 0, 5_000, 'held requests');
    await sleep(500);

    // 2. Make both workers' next claims meet on the same position: a transaction of ours locks it,
    //    then the held requests are answered, so both workers go round and claim again at once (the
    //    batch's results wait on our lock to move it). A claim that skips a locked position finds
    //    nothing and goes idle; one that did not lock it would now wait on ours, both workers on
    //    the same events, and send them twice. The requests held are counted once the lock is ours
    //    and what claims made before it took has arrived (no new request for a second): the helping
    //    worker claims more as the events age until then, and this receiver records a request only
    //    once it has found its sender in /proc, which takes a while on a busy machine.
    const locker = new Client({ connectionString: db.url });
    clients.push(locker);
    await locker.connect();
    await locker.query('BEGIN');
    const position = await locker.query('SELECT 1 FROM webhook_positions WHERE endpoint_id = $1 FOR UPDATE', [endpointId]);
    expect(position.rowCount).toBe(1);
    const heldCount = await settled(() => rx.requests.length, 1_000);
    const bySender = new Map<number | null, number>();
    for (const r of rx.requests) bySender.set(r.senderPid, (bySender.get(r.senderPid) ?? 0) + 1);
    expect(Math.max(...bySender.values())).toBeLessThanOrEqual(WORKER_BATCH);
    expect(new Set(rx.requests.map((r) => r.deliveryId)).size).toBe(heldCount);
    rx.gate = null;
    release();
    await waitFor(() => rx.answered === rx.requests.length, 5_000, 'the held requests answered');
    await sleep(300);
    expect(rx.requests).toHaveLength(heldCount); // nothing after the locked position was sent
    await locker.query('COMMIT');

    // 3. Event 120, through B: its NOTIFY wakes both workers together, and they drain the queue.
    await joinGroup(B.url, f.key, groupId, users[N - 1]);
    const delivered = async () => (await rows()).filter((d) => d.status === 'delivered').length;
    await waitFor(async () => (await delivered()) === N, 30_000, `${N} deliveries delivered`, 100);
    await sleep(500); // a duplicate send would have arrived by now

    // Exactly one request per delivery id, and the ids are the rows' ids.
    const perDelivery = new Map<string, number>();
    for (const r of rx.requests) perDelivery.set(r.deliveryId, (perDelivery.get(r.deliveryId) ?? 0) + 1);
    expect([...perDelivery.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(rx.requests).toHaveLength(N);
    const done = await rows();
    expect(done).toHaveLength(N);
    expect(done.filter((d) => !(d.status === 'delivered' && d.attempts === 1 && d.lastStatus === 200))).toEqual([]);
    expect(new Set(perDelivery.keys())).toEqual(new Set(done.map((d) => d.id)));
    // One delivery per published event, each event once.
    const published = await db.query<{ id: string }>(
      `SELECT trim(id) AS id FROM ${journalEvents()} WHERE game_id = $1 AND type = 'member.joined'`,
      [f.gameId],
    );
    expect(published).toHaveLength(N);
    expect(rx.requests.map((r) => r.eventId).sort()).toEqual(published.map((p) => p.id).sort());
    const by = (pid: number) => rx.requests.filter((r) => (r.senderPid ?? -1) === pid).length;
    observed['webhook deliveries (120)'] =
      `sent by A ${by(A.proc.pid)}, by B ${by(B.proc.pid)}, unattributed ${by(-1)}; none twice`;
  });

  // -------------------------------------------------------------------------------------------
  it('the sweeper: both processes tick, one sweeps while the other skips; everything eligible is removed once', async () => {
    // Both processes' hourly timers were shortened by the preload, and both are ticking.
    for (const s of [A, B]) {
      expect(s.proc.stderr().match(/\[scale-out\] hourly interval shortened/g)).toHaveLength(1);
    }
    const settled = (s: RunningServer) => (s.proc.stderr().match(/\[scale-out\] settled \d+/g) ?? []).length;
    const ticks = (s: RunningServer) => (s.proc.stderr().match(/\[scale-out\] tick \d+/g) ?? []).length;
    await waitFor(() => settled(A) >= 3 && settled(B) >= 3, 10_000, 'three settled sweeps on each process');

    const f = await newGame(A.url, 'sweeper');
    const doomed: string[] = [];
    for (let i = 0; i < 3; i++) {
      const g = await newGroup(i % 2 ? B.url : A.url, f.key, `doomed-${i}`);
      await joinGroup(B.url, f.key, g, newUser('sweep'));
      await ok(http(`${A.url}/v1/groups/${g}`, { method: 'DELETE', headers: bearer(f.key) }), 200, 'soft delete');
      doomed.push(g);
    }
    const recent = await newGroup(A.url, f.key, 'recently deleted');
    await ok(http(`${B.url}/v1/groups/${recent}`, { method: 'DELETE', headers: bearer(f.key) }), 200, 'soft delete');
    const live = await newGroup(B.url, f.key, 'live');

    // A blocker holds one member row of a doomed group, so the sweep that deletes the group (and
    // cascades to its members) stays inside its transaction, holding the sweeper lock, until we let
    // go. The rows become eligible (soft-deleted 8 days ago) while it is held.
    const blocker = new Client({ connectionString: db.url });
    clients.push(blocker);
    await blocker.connect();
    await blocker.query('BEGIN');
    const held = await blocker.query(`SELECT id FROM members WHERE group_id = $1 FOR UPDATE`, [doomed[0]]);
    expect(held.rowCount).toBe(1);
    await db.query(`UPDATE groups SET soft_deleted_at = now() - interval '8 days' WHERE id = ANY($1::uuid[])`, [doomed]);
    await db.query(`UPDATE groups SET soft_deleted_at = now() - interval '6 days' WHERE id = $1`, [recent]);

    type Snapshot = { deleting: number[]; holders: number[]; lockWaiters: number };
    const snapshot = async (): Promise<Snapshot> => {
      const [s] = await db.query<Snapshot>(
        `SELECT
           (SELECT coalesce(array_agg(pid), '{}') FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND query ILIKE '%DELETE FROM groups%') AS deleting,
           (SELECT coalesce(array_agg(pid), '{}') FROM pg_locks
             WHERE locktype = 'advisory' AND classid = $1::oid AND objid = $2::oid AND objsubid = 1 AND granted
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS holders,
           (SELECT count(*)::int FROM pg_locks
             WHERE locktype = 'advisory' AND classid = $1::oid AND objid = $2::oid AND NOT granted) AS "lockWaiters"`,
        [LOCK_CLASSID, LOCK_OBJID],
      );
      return s;
    };

    // The next tick of one process enters the sweep and blocks on the held row.
    let first: Snapshot = { deleting: [], holders: [], lockWaiters: 0 };
    await waitFor(async () => (first = await snapshot()).deleting.length > 0, 5_000, 'a sweep blocked on the held member row');
    const before = { A: { ticks: ticks(A), settled: settled(A) }, B: { ticks: ticks(B), settled: settled(B) } };

    // For 1.5 s (10 ticks of each timer): exactly one sweep inside, holding the lock; the other
    // process keeps ticking and its sweeps settle at once (they skipped: nobody waits on the lock).
    const samples: Snapshot[] = [first];
    const windowEnd = Date.now() + 1_500;
    while (Date.now() < windowEnd) {
      samples.push(await snapshot());
      await sleep(50);
    }
    // The API keeps working on both while a sweep is stuck.
    await joinGroup(A.url, f.key, live, newUser('during'));
    await joinGroup(B.url, f.key, live, newUser('during'));
    const since = (s: RunningServer, b: { ticks: number; settled: number }) => ({ ticks: ticks(s) - b.ticks, settled: settled(s) - b.settled });
    const during = { A: since(A, before.A), B: since(B, before.B) };

    // Every sample: one backend in the DELETE, and it is the one holding the sweeper lock.
    const sweeperPid = first.deleting[0];
    const expected = { deleting: [sweeperPid], holders: [sweeperPid], lockWaiters: 0 };
    expect([...new Set(samples.map((x) => JSON.stringify(x)))]).toEqual([JSON.stringify(expected)]);
    expect(samples.length).toBeGreaterThanOrEqual(10);
    expect(during.A.ticks).toBeGreaterThanOrEqual(5);
    expect(during.B.ticks).toBeGreaterThanOrEqual(5);
    // One process's sweep is stuck (its later ticks join the run in flight); the other's all settle.
    const stuck = (['A', 'B'] as const).filter((n) => during[n].settled === 0);
    const skipping = (['A', 'B'] as const).filter((n) => during[n].settled >= 5);
    expect({ stuck: stuck.length, skipping: skipping.length }).toEqual({ stuck: 1, skipping: 1 });

    // Let go: the stuck sweep finishes and removes the three groups, with their members.
    await blocker.query('ROLLBACK');
    await waitFor(
      async () => (await db.query(`SELECT 1 FROM groups WHERE id = ANY($1::uuid[])`, [doomed])).length === 0,
      5_000,
      'the eligible groups removed',
    );
    await sleep(SWEEP_TEST_MS * 4); // several more ticks on each: nothing left to do, nothing breaks

    expect(await db.query(`SELECT 1 FROM members WHERE group_id = ANY($1::uuid[])`, [doomed])).toHaveLength(0);
    const kept = await db.query<{ id: string; deleted: boolean }>(
      `SELECT id, soft_deleted_at IS NOT NULL AS deleted FROM groups WHERE id = ANY($1::uuid[]) ORDER BY name`,
      [[recent, live]],
    );
    expect(kept).toEqual([
      { id: live, deleted: false },
      { id: recent, deleted: true },
    ]);
    // Exactly one sweep reported removing them: the stuck one.
    const reports = (s: RunningServer) => [...s.proc.stdout().matchAll(/removed (\d+) soft-deleted groups/g)].map((m) => Number(m[1]));
    const removed = { A: reports(A), B: reports(B) };
    expect([...removed.A, ...removed.B]).toEqual([3]);
    expect(removed[stuck[0]]).toEqual([3]);

    // Both processes are alive, healthy and logged no error.
    for (const s of [A, B]) {
      expect(s.proc.exit()).toBeNull();
      expect((await http(`${s.url}/healthz`)).status).toBe(200);
      expect(s.proc.stdout()).not.toMatch(/"level":(50|60)/);
    }
    observed['sweeper'] =
      `${stuck[0]} swept (pg pid ${sweeperPid}); ${skipping[0]} ticked ${during[skipping[0]].ticks} times in 1.5 s and skipped each time`;
  });

  // -------------------------------------------------------------------------------------------
  it('the permission cache is per process: an answer cached on A is not on B', async () => {
    const f = await newGame(A.url, 'cache per process');
    const groupId = await newGroup(A.url, f.key);
    const userId = newUser();
    await joinGroup(A.url, f.key, groupId, userId);
    const roleId = await assignedRole(A.url, f.key, groupId, userId, 'moderator');
    await sleep(200);

    const P = 'chat.mute';
    const DEFAULT: Check = { allowed: false, source: 'default' };
    const VIA_ROLE: Check = { allowed: true, source: 'role', viaRoleId: roleId };
    expect(await check(A.url, f.key, userId, groupId, P)).toStrictEqual(DEFAULT); // cached on A only
    await db.query(`INSERT INTO role_permissions (role_id, permission) VALUES ($1, $2)`, [roleId, P]); // notifies nobody
    expect(await check(A.url, f.key, userId, groupId, P)).toStrictEqual(DEFAULT); // A: its cached answer
    expect(await check(B.url, f.key, userId, groupId, P)).toStrictEqual(VIA_ROLE); // B: computed now

    // Any real change to the group through B (here a grant of another key) drops A's cached
    // answers at once: A then computes the answer the database holds.
    await send(B.url, f.key, 'POST', `/v1/roles/${roleId}/permissions`, 200, { permission: 'chat.other' }); // grant on B
    const seen = await pollUntil(
      performance.now(),
      () => check(A.url, f.key, userId, groupId, P),
      (c) => JSON.stringify(c) === JSON.stringify(VIA_ROLE),
      'the change on B, on A',
    );
    expect(seen.delayMs).toBeLessThan(1_000);
    observed['permission change on B, seen on A'] = `${ms(seen.delayMs)} after the grant's response (${seen.polls} checks)`;
  });

  // -------------------------------------------------------------------------------------------
  it('the rate limiter is per process: with 60/min and a burst of 5, one key gets its burst on EACH instance', async () => {
    const limited = { RATE_LIMIT_PER_MINUTE: '60', RATE_LIMIT_BURST: '5', LOG_LEVEL: 'warn' };
    const [C, D] = await startPair(db, limited);
    try {
      const f = await newGame(A.url, 'rate limit'); // minted through the unlimited pair: C and D never saw the key
      const whoami = (base: string) => http(`${base}/v1/whoami`, { headers: bearer(f.key) });
      const burst = async (base: string) => {
        const started = performance.now();
        const statuses: number[] = [];
        let limitedRes: HttpResult | undefined;
        for (let i = 0; i < 10 && !limitedRes; i++) {
          const r = await whoami(base);
          statuses.push(r.status);
          if (r.status === 429) limitedRes = r;
        }
        return { statuses, limitedRes, elapsedS: (performance.now() - started) / 1_000 };
      };

      const admittedBy = (b: { statuses: number[] }) => b.statuses.filter((s) => s === 200).length;
      const onC = await burst(C.url);
      const onD = await burst(D.url); // the same key, right after C refused it
      const cAgain = await whoami(C.url);

      for (const b of [onC, onD]) {
        // 5 admitted (plus at most one refilled token per elapsed second), then refused.
        expect(b.statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
        expect(admittedBy(b)).toBeLessThanOrEqual(5 + Math.floor(b.elapsedS));
        expect(b.limitedRes?.body).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
        expect(b.limitedRes?.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      }
      expect(cAgain.status).toBe(429); // C's bucket is still empty: D's burst came from D's own bucket
      observed['rate limit, one key, 2 instances'] =
        `${admittedBy(onC)} admitted by C + ${admittedBy(onD)} by D (burst 5 each)`;
    } finally {
      await Promise.all([C.proc.kill(), D.proc.kill()]);
    }
  });
});
