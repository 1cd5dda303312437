// Benchmark of GET /v1/users/:userId/friends/suggestions (SPEC §4 Friends rule 4) on a large graph.
//
//   cd /work/main && npm run build && node bench/friends-suggestions.mjs
//
// What it does, on its own and cleaning up after itself:
//   1. creates a scratch database on DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432),
//   2. starts the built server (node dist/src/main.js) on it (migrations applied on boot),
//      NODE_ENV=production, LOG_LEVEL=warn, rate limiter off; creates a game and its key via the API,
//   3. seeds the graph straight into Postgres: BENCH_USERS users (default 100 000), each with
//      BENCH_FRIENDS friends (default 100), i.e. users x friends friend rows (both rows of every
//      friendship). User i is friends with i +/- s (mod N) for 50 offsets s: 25 small ones (1-500,
//      overlapping neighbourhoods, many mutual friends) and 25 large ones; every candidate then has at
//      least 2 mutual friends, so each call aggregates ~10 000 friends-of-friends rows into ~5 000
//      candidates. The bulk load runs with session_replication_role=replica (no FK or mirror-trigger
//      checks: the graph is symmetric by construction) into the migration's own indexes, then
//      VACUUM ANALYZE,
//   4. prints the plan (EXPLAIN ANALYZE, BUFFERS) of the suggestions statement for one user,
//   5. times BENCH_SAMPLES HTTP calls (default 1 000) for random users, one at a time, then the same
//      with BENCH_CONCURRENCY (default 4) in flight, and prints p50/p95/p99/max in a Markdown table,
//   6. stops the server and drops the scratch database, also on failure or Ctrl-C.
// Exit code 1 when a call fails or the sequential p95 is 100 ms or more.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = join(ROOT, 'dist', 'src', 'main.js');
const REPO = join(ROOT, 'dist', 'src', 'friends', 'friends.repository.js');
const SERVER_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const FRIENDS = Number(process.env.BENCH_FRIENDS ?? 100);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const TARGET_P95_MS = 100;
const ADMIN_TOKEN = `jadm_bench_${randomBytes(12).toString('hex')}`;
const DB_NAME = `gh_bench_${process.pid}_${randomBytes(4).toString('hex')}`;

const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

function databaseUrl(serverUrl, database) {
  const u = new URL(serverUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
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

function startServer(env) {
  const child = spawn(process.execPath, [MAIN], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk) => (tail = (tail + chunk.toString()).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, tail: () => tail };
}

async function stopServer(proc) {
  if (!proc || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 10_000);
  await proc.exited;
  clearTimeout(timer);
}

async function waitReady(proc, url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let dead = false;
  proc.exited.then(() => (dead = true));
  while (Date.now() < deadline) {
    if (dead) throw new Error(`server exited during start-up:\n${proc.tail()}`);
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not become ready in ${timeoutMs} ms:\n${proc.tail()}`);
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

/** A small deterministic PRNG (mulberry32), so every run seeds the same graph. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FRIENDS/2 distinct offsets in [1, USERS/2): half small (neighbourhoods), half large. */
function offsets() {
  const rnd = prng(20260101);
  const half = FRIENDS / 2;
  const chosen = new Set();
  while (chosen.size < Math.ceil(half / 2)) chosen.add(1 + Math.floor(rnd() * Math.min(500, USERS / 2 - 1)));
  while (chosen.size < half) chosen.add(1 + Math.floor(rnd() * (USERS / 2 - 1)));
  return [...chosen];
}

async function seed(dbUrl, gameId) {
  const shifts = offsets();
  await withClient(dbUrl, async (c) => {
    await c.query(`SET session_replication_role = replica`);
    const t0 = performance.now();
    await c.query(
      `INSERT INTO users (id) SELECT md5('bench-user-' || i)::uuid FROM generate_series(0, $1 - 1) i`,
      [USERS],
    );
    await c.query(
      `INSERT INTO user_identities (game_id, external_id, user_id)
       SELECT $2, 'p' || i, md5('bench-user-' || i)::uuid FROM generate_series(0, $1 - 1) i`,
      [USERS, gameId],
    );
    log(`users and identities: ${Math.round(performance.now() - t0)} ms`);
    const chunk = 5000;
    for (let lo = 0; lo < USERS; lo += chunk) {
      const hi = Math.min(USERS, lo + chunk);
      // Row i -> j for j = i +/- s: every directed row once, so both rows of every friendship exist,
      // with one respondedAt per friendship (a function of the unordered pair).
      await c.query(
        `INSERT INTO user_relationships
           (id, game_id, user_id, other_id, user_external_id, other_external_id, type, created_at, responded_at)
         SELECT gen_random_uuid(), $4, md5('bench-user-' || i)::uuid, md5('bench-user-' || j)::uuid, 'p' || i, 'p' || j,
                'friend', ts, ts
         FROM generate_series($1::int, $2::int - 1) i
         CROSS JOIN unnest($5::int[]) s
         CROSS JOIN LATERAL (VALUES ((i + s) % $3), ((i - s + $3) % $3)) v(j)
         CROSS JOIN LATERAL (SELECT timestamptz '2026-01-01' - ((least(i, j)::bigint * 7919 + greatest(i, j)) % 31536000) * interval '1 second' AS ts) t`,
        [lo, hi, USERS, gameId, shifts],
      );
      if ((hi / chunk) % 4 === 0 || hi === USERS) log(`friend rows for ${hi}/${USERS} users (${Math.round((performance.now() - t0) / 1000)} s)`);
    }
    await c.query(`SET session_replication_role = origin`);
    await c.query('VACUUM ANALYZE user_relationships');
    await c.query('VACUUM ANALYZE user_identities');
    const [{ rows, size }] = (
      await c.query(`SELECT count(*)::int AS rows, pg_size_pretty(pg_total_relation_size('user_relationships')) AS size FROM user_relationships`)
    ).rows;
    log(`seeded ${rows.toLocaleString('en-US')} friend rows (${size} with indexes) in ${Math.round((performance.now() - t0) / 1000)} s`);
  });
}

/** The suggestions statement as the repository builds it, captured from the built code. */
async function suggestionsStatement(params) {
  const require = createRequire(import.meta.url);
  const { FriendsRepository } = require(REPO);
  let captured;
  const capture = { query: async (sql, values) => ((captured = { sql, values }), []) };
  await new FriendsRepository().suggestions(capture, params);
  return captured;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function measure(base, key, concurrency) {
  const rnd = prng(concurrency * 7 + 1);
  const times = [];
  let failures = 0;
  let next = 0;
  let empty = 0;
  const worker = async () => {
    while (next < SAMPLES) {
      next++;
      const user = `p${Math.floor(rnd() * USERS)}`;
      const t0 = performance.now();
      const r = await fetch(`${base}/v1/users/${user}/friends/suggestions`, { headers: { authorization: `Bearer ${key}` } });
      const body = await r.json();
      times.push(performance.now() - t0);
      if (r.status !== 200) failures++;
      else if (body.items.length === 0) empty++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  times.sort((a, b) => a - b);
  return {
    concurrency,
    n: times.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    max: times[times.length - 1],
    failures,
    empty,
  };
}

let server;
let dbCreated = false;
let cleaned = false;

async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  await stopServer(server);
  if (dbCreated) {
    await withClient(SERVER_URL, (c) => c.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`)).catch((err) =>
      log(`could not drop ${DB_NAME}: ${err.message}`),
    );
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
  if (FRIENDS % 2 !== 0 || FRIENDS < 4) throw new Error('BENCH_FRIENDS must be an even number of at least 4');

  await withClient(SERVER_URL, (c) => c.query(`CREATE DATABASE ${DB_NAME}`));
  dbCreated = true;
  const dbUrl = databaseUrl(SERVER_URL, DB_NAME);
  log(`created database ${DB_NAME}`);

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  server = startServer({
    DATABASE_URL: dbUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  await waitReady(server, `${base}/`);
  const game = await api(base, 'POST', '/v1/admin/games', { token: ADMIN_TOKEN, body: { name: 'bench' }, expect: 201 });
  const { key } = await api(base, 'POST', `/v1/admin/games/${game.id}/api-keys`, { token: ADMIN_TOKEN, expect: 201 });
  log(`server on ${base}, game ${game.id}`);

  await seed(dbUrl, game.id);

  // The plan of one call, on the warm cache.
  const probeUser = Math.floor(USERS * 0.12345);
  const probe = await api(base, 'GET', `/v1/users/p${probeUser}/friends/suggestions`, { token: key, expect: 200 });
  if (!probe.items.length) throw new Error('the probe user got no suggestions: the seeded graph is wrong');
  const stmt = await suggestionsStatement({
    userId: (await withClient(dbUrl, (c) => c.query(`SELECT md5('bench-user-' || $1)::uuid AS id`, [probeUser]))).rows[0].id,
    gameIds: [game.id],
    callingGameId: game.id,
    minMutuals: 2,
    limit: 20,
  });
  const plan = await withClient(dbUrl, (c) => c.query(`EXPLAIN (ANALYZE, BUFFERS) ${stmt.sql}`, stmt.values));
  process.stdout.write(`\nEXPLAIN (ANALYZE, BUFFERS) of the suggestions statement for one user:\n\n`);
  process.stdout.write(plan.rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n') + '\n');

  // Warm-up, then the measured runs.
  await measure(base, key, 1).catch(() => undefined);
  const rows = [await measure(base, key, 1), await measure(base, key, CONCURRENCY)];
  const fmt = (x) => x.toFixed(1);
  process.stdout.write(
    [
      '',
      `Friend suggestions: ${USERS.toLocaleString('en-US')} users x ${FRIENDS} friends (${(USERS * FRIENDS).toLocaleString('en-US')} friend rows), ` +
        `${SAMPLES} calls per run for random users, limit 20, minMutuals 2, built server (NODE_ENV=production), Node ${process.version}`,
      '',
      '| In flight | Calls | p50 (ms) | p95 (ms) | p99 (ms) | max (ms) | Failures | Empty answers |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((r) => `| ${r.concurrency} | ${r.n} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${fmt(r.p99)} | ${fmt(r.max)} | ${r.failures} | ${r.empty} |`),
      '',
    ].join('\n'),
  );
  if (rows.some((r) => r.failures > 0)) {
    log('some calls failed');
    process.exitCode = 1;
  }
  if (rows[0].p95 >= TARGET_P95_MS) {
    log(`sequential p95 ${fmt(rows[0].p95)} ms is not under ${TARGET_P95_MS} ms`);
    process.exitCode = 1;
  }
}

try {
  await main();
} catch (err) {
  log(err.stack ?? String(err));
  process.exitCode = 1;
} finally {
  await cleanup();
}
