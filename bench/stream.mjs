// Benchmark: live-stream fan-out (SPEC §6 "Live stream", DECISIONS §8, §26).
//
// How to run, from the project root (needs a Postgres whose user may CREATE DATABASE):
//   npm run build
//   node bench/stream.mjs
// Environment:
//   DATABASE_URL        any database URL of the Postgres server to use; a scratch database is
//                       created there and dropped at the end (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_SUBSCRIBERS   concurrent SSE subscribers on one group (default 1000)
//   BENCH_JOINS         joins, one `member.joined` event each (default 200)
//   BENCH_INTERVAL_MS   pacing between the starts of two joins (default 50)
//
// What it does: creates the scratch database, starts the BUILT server (dist/src/main.js) on it as
// a child process, creates a game, a key and a public group through the API, opens
// BENCH_SUBSCRIBERS streams `GET /v1/events/:groupId` with raw node:http clients (one socket each,
// not EventSource), then sends BENCH_JOINS joins paced BENCH_INTERVAL_MS apart (open loop). For
// every event it records, at every subscriber, the time the frame arrived, and reports the time
// from the join's HTTP response (the commit is done before the response is sent) to each receipt;
// the time from sending the join is reported too, because the server writes the frames right after
// the commit, before the response itself, so a receipt may come BEFORE the response (negative).
// The server's RSS is sampled from /proc/<pid>/status (VmRSS) all along, VmHWM at the end.
// Everything runs on this machine: the subscribers' own event loop is part of each latency (its
// delay is reported). At the end it closes the streams, stops the server (SIGTERM), drops the
// database and prints a Markdown table. Targets: p99 <= 100 ms at 1000 subscribers, RSS < 400 MB.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { createServer as createNetServer } from 'node:net';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MAIN_JS = join(ROOT, 'dist/src/main.js');
const SERVER_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS || 1000);
const JOINS = Number(process.env.BENCH_JOINS || 200);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS || 50);
const TARGET_P99_MS = 100;
const TARGET_RSS_MB = 400;
const ADMIN = `jadm_${randomBytes(18).toString('hex')}`;
const DB_NAME = `bench_stream_${process.pid}_${randomBytes(3).toString('hex')}`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error(...a); // progress on stderr; the table on stdout
const dbUrl = (name) => {
  const u = new URL(SERVER_URL);
  u.pathname = `/${name}`;
  return u.toString();
};
const freePort = () =>
  new Promise((resolve) => {
    const s = createNetServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : NaN);
const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

/** CPU seconds (user + system) of a process, from /proc/<pid>/stat (USER_HZ = 100). */
function cpuSeconds(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

/** A line of /proc/<pid>/status in MB (VmRSS, VmHWM). */
function procMb(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

// ---- what this script starts, so that it can always be stopped ----
let serverChild = null;
const sockets = [];
let dbCreated = false;

async function cleanup() {
  for (const req of sockets) req.destroy();
  if (serverChild && serverChild.exitCode === null && serverChild.signalCode === null) {
    const exited = new Promise((r) => serverChild.once('exit', r));
    serverChild.kill('SIGTERM');
    const t = setTimeout(() => serverChild.kill('SIGKILL'), 35_000);
    await exited;
    clearTimeout(t);
  }
  if (dbCreated) {
    const admin = new Client({ connectionString: SERVER_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await admin.end();
    log(`dropped ${DB_NAME}`);
  }
}

const apiAgent = new Agent({ keepAlive: true, maxSockets: 16 });

/** One API call over node:http; resolves at the response headers with { status, body, at }. */
function api(base, method, path, body, token) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${base}${path}`,
      {
        method,
        agent: apiAgent,
        headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
      },
      (res) => {
        const at = performance.now();
        let text = '';
        res.setEncoding('utf8').on('data', (d) => (text += d));
        res.on('end', () => {
          if (res.statusCode >= 300) return reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
          resolve({ status: res.statusCode, body: text ? JSON.parse(text) : undefined, at });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function startServer(databaseUrl) {
  const port = await freePort();
  serverChild = spawn(process.execPath, [MAIN_JS], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      SVC_ADMIN_TOKEN: ADMIN,
      RATE_LIMIT_PER_MINUTE: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  serverChild.stdout.setEncoding('utf8').on('data', (d) => (out = (out + d).slice(-20_000)));
  serverChild.stderr.setEncoding('utf8').on('data', (d) => (out = (out + d).slice(-20_000)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (serverChild.exitCode !== null) throw new Error(`the server exited during start-up:\n${out}`);
    try {
      await fetch(`${base}/`, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`the server did not answer within 60 s:\n${out}`);
      await sleep(100);
    }
  }
  return { base, pid: serverChild.pid, output: () => out };
}

/**
 * Receipts: event id -> arrival times (performance.now()) across subscribers; the user id of each
 * event (parsed once per event, from its first copy) ties it to its join.
 */
const receipts = new Map();
const userOfEvent = new Map();
let duplicates = 0;
let closedEarly = 0;

/** Opens one stream; resolves once its `:ok` comment arrived. */
function subscribe(base, key, groupId, index) {
  return new Promise((resolve, reject) => {
    const seen = new Set();
    const req = request(`${base}/v1/events/${groupId}`, { agent: false, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`subscriber ${index}: ${res.statusCode}`));
      }
      let buf = '';
      let ready = false;
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        const at = performance.now();
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          if (frame.startsWith(':')) {
            if (!ready) {
              ready = true;
              resolve();
            }
            continue;
          }
          if (!frame.startsWith('id: ')) continue;
          const id = frame.slice(4, frame.indexOf('\n'));
          if (seen.has(id)) {
            duplicates++;
            continue;
          }
          seen.add(id);
          let times = receipts.get(id);
          if (!times) {
            receipts.set(id, (times = []));
            const data = frame.slice(frame.indexOf('\ndata: ') + 7);
            userOfEvent.set(id, JSON.parse(data).member?.userId);
          }
          times.push(at);
        }
      });
      res.on('close', () => {
        if (!ready) reject(new Error(`subscriber ${index} closed before :ok`));
        closedEarly++;
      });
    });
    req.on('error', reject);
    req.end();
    sockets.push(req);
  });
}

async function main() {
  log(`creating ${DB_NAME} on ${new URL(SERVER_URL).host}`);
  const admin = new Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  dbCreated = true;
  const version = (await admin.query('SHOW server_version')).rows[0].server_version;
  await admin.end();

  const server = await startServer(dbUrl(DB_NAME));
  const { base, pid } = server;
  log(`server pid ${pid} on ${base}`);

  const game = (await api(base, 'POST', '/v1/admin/games', { name: 'stream bench' }, ADMIN)).body;
  const key = (await api(base, 'POST', `/v1/admin/games/${game.id}/api-keys`, undefined, ADMIN)).body.key;
  const group = (await api(base, 'POST', '/v1/groups', { kind: 'guild', name: 'Bench', visibility: 'public' }, key)).body;
  // Warm the join path (JIT, pool, caches) outside the measurement.
  for (let i = 0; i < 20; i++) await api(base, 'POST', `/v1/groups/${group.id}/join`, { userId: `warmup-${i}` }, key);
  await sleep(500);
  const rssIdle = procMb(pid, 'VmRSS');

  log(`opening ${SUBSCRIBERS} streams`);
  const tOpen = performance.now();
  for (let i = 0; i < SUBSCRIBERS; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, SUBSCRIBERS - i) }, (_, j) => subscribe(base, key, group.id, i + j)));
  }
  const openS = (performance.now() - tOpen) / 1000;
  await sleep(1000);
  const rssSubscribed = procMb(pid, 'VmRSS');
  log(`  open in ${fmt(openS)} s; RSS ${fmt(rssSubscribed)} MB`);

  // RSS sampled all along the event phase.
  let rssPeak = rssSubscribed;
  const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, procMb(pid, 'VmRSS'))), 100);
  const LOOP_RES_MS = 5;
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RES_MS });
  loopDelay.enable();

  log(`${JOINS} joins, one every ${INTERVAL_MS} ms`);
  const joins = new Array(JOINS);
  const cpu0 = cpuSeconds(pid);
  const selfCpu0 = process.cpuUsage();
  const t0 = performance.now();
  const pending = [];
  for (let i = 0; i < JOINS; i++) {
    const wait = t0 + i * INTERVAL_MS - performance.now();
    if (wait > 0) await sleep(wait);
    const userId = `bench-${i}`;
    const sentAt = performance.now();
    pending.push(
      api(base, 'POST', `/v1/groups/${group.id}/join`, { userId }, key).then((r) => {
        joins[i] = { userId, sentAt, respondedAt: r.at };
      }),
    );
  }
  await Promise.all(pending);
  const joinsS = (performance.now() - t0) / 1000;

  // Wait for every copy (or give up 10 s after the last join).
  const expected = JOINS * SUBSCRIBERS;
  const count = () => [...receipts.entries()].filter(([id]) => userOfEvent.get(id)?.startsWith('bench-')).reduce((n, [, t]) => n + t.length, 0);
  const deadline = performance.now() + 10_000;
  while (count() < expected && performance.now() < deadline) await sleep(100);
  loopDelay.disable();
  clearInterval(rssTimer);
  const phaseS = (performance.now() - t0) / 1000;
  const serverCpuPct = ((cpuSeconds(pid) - cpu0) / phaseS) * 100;
  const selfCpu = process.cpuUsage(selfCpu0);
  const clientCpuPct = ((selfCpu.user + selfCpu.system) / 1e6 / phaseS) * 100;
  const rssAfter = procMb(pid, 'VmRSS');
  const hwm = procMb(pid, 'VmHWM');

  const byUser = new Map(joins.map((j) => [j.userId, j]));
  const fromResponse = [];
  const fromRequest = [];
  const fanoutDone = [];
  let received = 0;
  let before = 0;
  for (const [id, times] of receipts) {
    const j = byUser.get(userOfEvent.get(id));
    if (!j) continue; // a warm-up event
    received += times.length;
    let last = -Infinity;
    for (const at of times) {
      fromResponse.push(at - j.respondedAt);
      fromRequest.push(at - j.sentAt);
      if (at < j.respondedAt) before++;
      last = Math.max(last, at);
    }
    fanoutDone.push(last - j.respondedAt);
  }
  fromResponse.sort((a, b) => a - b);
  fromRequest.sort((a, b) => a - b);
  fanoutDone.sort((a, b) => a - b);
  const joinRtt = joins.map((j) => j.respondedAt - j.sentAt).sort((a, b) => a - b);
  const p99 = pct(fromResponse, 99);
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

  const out = [];
  out.push(`### Live stream fan-out: ${SUBSCRIBERS} subscribers on one group, ${JOINS} joins (one every ${INTERVAL_MS} ms)`);
  out.push('');
  out.push(
    `PostgreSQL ${version}, Node ${process.version}, ${cpus().length} CPUs shared by the server, Postgres and the ${SUBSCRIBERS} clients (one process); load average after the run ${load}.`,
  );
  out.push('');
  out.push('| measure | p50 | p99 | max | target |');
  out.push('|---|---|---|---|---|');
  out.push(`| join response → receipt, all ${received} receipts | ${fmt(pct(fromResponse, 50))} ms | ${fmt(p99)} ms | ${fmt(fromResponse.at(-1))} ms | p99 ≤ ${TARGET_P99_MS} ms: ${p99 <= TARGET_P99_MS ? 'met' : 'MISSED'} |`);
  out.push(`| join sent → receipt | ${fmt(pct(fromRequest, 50))} ms | ${fmt(pct(fromRequest, 99))} ms | ${fmt(fromRequest.at(-1))} ms | |`);
  out.push(`| join response → last subscriber, per event | ${fmt(pct(fanoutDone, 50))} ms | ${fmt(pct(fanoutDone, 99))} ms | ${fmt(fanoutDone.at(-1))} ms | |`);
  out.push(`| join round trip (sent → response) | ${fmt(pct(joinRtt, 50))} ms | ${fmt(pct(joinRtt, 99))} ms | ${fmt(joinRtt.at(-1))} ms | |`);
  const lag = (ns) => Math.max(0, ns / 1e6 - LOOP_RES_MS);
  out.push(`| the clients' own event-loop delay | ${fmt(lag(loopDelay.percentile(50)))} ms | ${fmt(lag(loopDelay.percentile(99)))} ms | ${fmt(lag(loopDelay.max))} ms | |`);
  out.push('');
  out.push('| measure | value | target |');
  out.push('|---|---|---|');
  out.push(`| receipts | ${received} of ${expected}${duplicates ? `, ${duplicates} duplicates` : ''}${closedEarly ? `, ${closedEarly} streams closed early` : ''} | all |`);
  out.push(`| receipts that arrived before the join's response | ${before} (${fmt((before / Math.max(1, received)) * 100)} %) | |`);
  out.push(`| ${SUBSCRIBERS} streams opened in | ${fmt(openS, 2)} s | |`);
  out.push(`| joins sent in (scheduled: ${fmt(((JOINS - 1) * INTERVAL_MS) / 1000, 2)} s) | ${fmt(joinsS, 2)} s | |`);
  out.push(`| CPU while the events flowed: server / the clients' process (100 % = one core) | ${fmt(serverCpuPct, 0)} % / ${fmt(clientCpuPct, 0)} % | |`);
  out.push(`| server RSS idle (before the streams) | ${fmt(rssIdle)} MB | |`);
  out.push(`| server RSS with ${SUBSCRIBERS} streams | ${fmt(rssSubscribed)} MB | |`);
  out.push(`| server RSS peak while fanning out (sampled every 100 ms) | ${fmt(rssPeak)} MB | < ${TARGET_RSS_MB} MB: ${Math.max(rssPeak, hwm) < TARGET_RSS_MB ? 'met' : 'MISSED'} |`);
  out.push(`| server VmHWM (peak RSS of its whole life) | ${fmt(hwm)} MB | |`);
  out.push(`| server RSS after the events | ${fmt(rssAfter)} MB | |`);
  console.log(out.join('\n'));
}

let failed = false;
const onSignal = () => {
  failed = true;
  cleanup().finally(() => process.exit(130));
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
try {
  await main();
} catch (err) {
  failed = true;
  console.error(err);
} finally {
  await cleanup().catch((e) => console.error('cleanup failed:', e));
}
process.exit(failed ? 1 : 0);
