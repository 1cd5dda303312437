// Benchmark of GET /v1/permissions/check (SPEC §4 Permission check) on the built server.
//
//   cd /work/main && npm run build && node bench/permission-check.mjs
//
// What it does, on its own and cleaning up after itself:
//   1. creates a scratch database on DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432),
//   2. starts the built server (node dist/src/main.js) on it with RATE_LIMIT_PER_MINUTE=0,
//      LOG_LEVEL=warn, NODE_ENV=production, and the minimal NestJS app of bench/minimal-nest-app.mjs,
//   3. seeds through the API: a game and its key, a public group, a member, a role granting a key,
//   4. measures with autocannon, 50 connections, 10 s each (after a short untimed warm-up):
//        (a) cache hit:  the same check over and over,
//        (b) cache miss: a new permission key on every request, so every answer is computed,
//        (c) the framework floor: the minimal Nest app (one guard, one interceptor, fixed JSON),
//   5. prints a Markdown table (requests/s, p50/p99 latency, non-2xx, errors) to stdout,
//   6. stops both processes and drops the scratch database, also on failure or Ctrl-C.
//
// Environment (all optional): DATABASE_URL (server to create the scratch database on),
// BENCH_DURATION (seconds per run, default 10), BENCH_CONNECTIONS (default 50),
// BENCH_WARMUP (seconds, default 2; 0 disables).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = join(ROOT, 'dist', 'src', 'main.js');
const MINIMAL = join(ROOT, 'bench', 'minimal-nest-app.mjs');
const SERVER_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const ADMIN_TOKEN = `jadm_bench_${randomBytes(12).toString('hex')}`;
const DB_NAME = `gh_bench_${process.pid}_${randomBytes(4).toString('hex')}`;

const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

function databaseUrl(serverUrl, database) {
  const u = new URL(serverUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

async function adminQuery(sql) {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Starts a node child process; rejects `exited` if it dies, keeps its stderr tail for errors. */
function startChild(name, args, env) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { name, child, exited, tail: () => tail };
}

async function stopChild(proc) {
  if (!proc || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 10_000);
  await proc.exited;
  clearTimeout(timer);
}

async function waitReady(proc, url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let dead = false;
  proc.exited.then(() => (dead = true));
  while (Date.now() < deadline) {
    if (dead) throw new Error(`${proc.name} exited during start-up:\n${proc.tail()}`);
    try {
      const r = await fetch(url, { headers: { authorization: 'Bearer ready-probe' } });
      if (r.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${proc.name} did not become ready in ${timeoutMs} ms:\n${proc.tail()}`);
}

async function api(base, method, path, { token, body, expect } = {}) {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  if (expect !== undefined && r.status !== expect) throw new Error(`${method} ${path}: expected ${expect}, got ${r.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

function run(opts) {
  return new Promise((resolve, reject) => {
    const options = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
    const instance = autocannon({ connections: CONNECTIONS, duration: DURATION, pipelining: 1, ...options }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
    activeRuns.add(instance);
    instance.on('done', () => activeRuns.delete(instance));
  });
}

const activeRuns = new Set();
let server;
let minimal;
let dbCreated = false;
let cleaned = false;
let stopping = false;

async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  stopping = true;
  for (const r of activeRuns) r.stop();
  await Promise.all([stopChild(server), stopChild(minimal)]);
  if (dbCreated) {
    await adminQuery(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`).catch((err) => log(`could not drop ${DB_NAME}: ${err.message}`));
    log(`dropped database ${DB_NAME}`);
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    cleanup().finally(() => process.exit(130));
  });
}

async function main() {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);

  await adminQuery(`CREATE DATABASE ${DB_NAME}`);
  dbCreated = true;
  log(`created database ${DB_NAME}`);

  const [port, minimalPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${port}`;
  const minimalBase = `http://127.0.0.1:${minimalPort}`;
  server = startChild('guildhall', [MAIN], {
    DATABASE_URL: databaseUrl(SERVER_URL, DB_NAME),
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  minimal = startChild('minimal nest app', [MINIMAL], { PORT: String(minimalPort), NODE_ENV: 'production' });
  await Promise.all([waitReady(server, `${base}/healthz`), waitReady(minimal, `${minimalBase}/v1/permissions/check`)]);
  log(`guildhall on ${base} (migrations applied), minimal app on ${minimalBase}`);

  // ---- seed through the API ----
  const game = await api(base, 'POST', '/v1/admin/games', { token: ADMIN_TOKEN, body: { name: 'bench' }, expect: 201 });
  const { key } = await api(base, 'POST', `/v1/admin/games/${game.id}/api-keys`, { token: ADMIN_TOKEN, expect: 201 });
  const group = await api(base, 'POST', '/v1/groups', { token: key, body: { kind: 'guild', name: 'bench', visibility: 'public' }, expect: 201 });
  const userId = 'bench-player';
  await api(base, 'POST', `/v1/groups/${group.id}/join`, { token: key, body: { userId }, expect: 201 });
  const role = await api(base, 'POST', `/v1/groups/${group.id}/roles`, { token: key, body: { name: 'officer', priority: 10 }, expect: 201 });
  await api(base, 'POST', `/v1/roles/${role.id}/permissions`, { token: key, body: { permission: 'guild.kick' }, expect: 200 });
  await api(base, 'POST', `/v1/groups/${group.id}/members/${userId}/roles/${role.id}`, { token: key, expect: 200 });

  const hitPath = `/v1/permissions/check?userId=${userId}&groupId=${group.id}&permission=guild.kick`;
  const hit = await api(base, 'GET', hitPath, { token: key, expect: 200 });
  if (!(hit.allowed === true && hit.source === 'role' && hit.viaRoleId === role.id)) throw new Error(`unexpected check answer ${JSON.stringify(hit)}`);
  const probe = await api(base, 'GET', `/v1/permissions/check?userId=${userId}&groupId=${group.id}&permission=probe.miss`, { token: key, expect: 200 });
  if (probe.source !== 'default') throw new Error(`unexpected miss answer ${JSON.stringify(probe)}`);
  log(`seeded game ${game.id}, group ${group.id}, role ${role.id}`);

  const headers = { authorization: `Bearer ${key}` };
  let n = 0;
  const nonce = randomBytes(4).toString('hex');
  const missRequests = [
    {
      method: 'GET',
      // a key never asked before on every request: never in the cache, always computed
      setupRequest: (req) => ({ ...req, path: `/v1/permissions/check?userId=${userId}&groupId=${group.id}&permission=miss.${nonce}.${n++}` }),
    },
  ];

  const cases = [
    { name: '(a) permission check, cache hit', url: `${base}${hitPath}`, headers },
    { name: '(b) permission check, cache miss (a new key per request)', url: base, headers, requests: missRequests },
    { name: '(c) minimal NestJS app (guard + interceptor + fixed JSON)', url: `${minimalBase}/v1/permissions/check`, headers },
  ];

  const rows = [];
  for (const c of cases) {
    if (stopping) throw new Error('interrupted');
    if (WARMUP > 0) {
      log(`warm-up ${WARMUP} s: ${c.name}`);
      await run({ url: c.url, headers: c.headers, requests: c.requests, duration: WARMUP, connections: Math.min(CONNECTIONS, 10) });
    }
    log(`measuring ${DURATION} s x ${CONNECTIONS} connections: ${c.name}`);
    const r = await run({ url: c.url, headers: c.headers, requests: c.requests });
    rows.push({
      name: c.name,
      rps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      total: r.requests.total,
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
    });
  }

  const misses = await api(base, 'GET', `/v1/permissions/check?userId=${userId}&groupId=${group.id}&permission=miss.${nonce}.0`, {
    token: key,
    expect: 200,
  });
  if (misses.source !== 'default') throw new Error(`unexpected miss answer ${JSON.stringify(misses)}`);

  const fmt = (x) => Math.round(x).toLocaleString('en-US');
  const load = os.loadavg().map((x) => x.toFixed(2)).join(' / ');
  const out = [
    '',
    `Permission check benchmark: ${CONNECTIONS} connections, ${DURATION} s per run, autocannon, Node ${process.version}, built server (NODE_ENV=production, LOG_LEVEL=warn, rate limiter off), Postgres at ${new URL(SERVER_URL).host}; ${os.cpus().length} CPUs, load average after the runs ${load} (1/5/15 min)`,
    '',
    '| Case | Requests/s (avg) | p50 latency (ms) | p99 latency (ms) | Requests | Non-2xx | Errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${fmt(r.rps)} | ${r.p50} | ${r.p99} | ${fmt(r.total)} | ${r.non2xx} | ${r.errors} |`,
    ),
    '',
  ];
  process.stdout.write(out.join('\n') + '\n');
  const bad = rows.filter((r) => r.non2xx > 0 || r.errors > 0);
  if (bad.length) {
    log(`non-2xx answers or errors in: ${bad.map((r) => r.name).join(', ')}`);
    process.exitCode = 1;
  }
}

try {
  await main();
} catch (err) {
  log(`failed: ${err?.stack ?? err}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
