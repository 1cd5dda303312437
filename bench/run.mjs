// The benchmark suite: `npm run bench` (= `npm run build && node bench/run.mjs`).
//
// On its own, and stopping everything it started at the end, also on failure or Ctrl-C:
//   1. Postgres: a scratch database on DATABASE_URL's server (dropped at the end) or, when
//      DATABASE_URL is unset, a throwaway embedded cluster; the migrations are applied;
//   2. the large dataset, seeded straight through SQL (bench/lib/seed.mjs), timed;
//   3. the ceilings of the write path: pgbench's TPC-B-like transaction on a scratch database of the
//      same server (bench/lib/pgbench.mjs; when pgbench is on the PATH), and our SQL alone: the
//      service's join and leave statements on raw pg, CONNECTIONS clients, no HTTP (bench/lib/db-ceiling.mjs);
//   4. the built server (dist/src/main.js, NODE_ENV=production, LOG_LEVEL=warn, rate limiter off,
//      private webhook hosts allowed) as a child process, the HTTP ceiling (a bare node:http server,
//      bench/ceilings/http-server.mjs) and the framework ceiling (a minimal NestJS app,
//      bench/ceilings/minimal-nest-app.mjs), each measured like a scenario;
//   5. every scenario (reads, and the writes of bench/lib/write-scenarios.mjs) with autocannon: CONNECTIONS connections, a warm-up, DURATION seconds, then
//      a short run on one connection; the server's RSS right after; CPU of server, Postgres, client;
//      each read row (the permission check on a cache miss, the lists, friends, audit, a player's notifications, group search)
//      is followed by its SQL alone: pgbench -f running the statements its requests send, as many
//      clients and seconds (bench/lib/sql-ceiling.mjs); for the search rows as the built repository
//      writes them (bench/lib/search.mjs), for the others as 100 of the row's requests really sent
//      them, caught on the wire by a relay between a capture server (one more server of the same
//      build, started at the first read row, stopped after the last) and Postgres (bench/lib/capture.mjs);
//   6. 1000 live-stream subscribers on one group, 1000 players' notification streams with one
//      notification each (bench/lib/notification-stream.mjs), and webhook deliveries to a local receiver;
//   7. EXPLAIN ANALYZE of the main statement of every read scenario (full plans of those whose p99
//      is over the 50 ms target);
//   8. writes bench/results/latest.md and prints it.
// Environment (all optional): DATABASE_URL; BENCH_DURATION (s, default 10); BENCH_WARMUP (s,
// default 3); BENCH_CONNECTIONS (default 50); BENCH_SCALE (dataset scale, default 1: try the suite
// quickly with 0.1; the targets are judged at 1 only); BENCH_ONLY (a regular expression over the
// scenario keys — httpCeiling, frameworkCeiling, dbCeiling, pgbench, permHit, permMiss, permBatch, permBatchCold, permEffective, permGroups, permMembers, joinLeave, joinLeaveCapped(Hot), joinLeaveExclusive,
// walJoin, joinLeaveHot, groupCreate, groupCreatePolicy, inviteAccept(Hot), banUnban(Hot), roleAssign(Hot), overrideSet(Hot),
// friendRequest, inviteNotifyNobody, inviteNotify, groupsFirst, groupsDeep, membersFirst, membersDeep, friendsList, suggestions, suggestionsCold, relationship,
// auditFirst, auditDeep, notificationCounts, notificationsFirst, searchText, searchTags, searchText1M, searchTags1M, stream, webhooks, feedPage, feedReplay, gameStream, notificationStreams, erasure, export, observability, nameMatch — to measure only those while working on one: such a
// run prints its figures and leaves bench/results/latest.md alone); BENCH_CPU_PROF=dir (the server
// writes a V8 CPU profile there when it stops; `node bench/cpu-profile-summary.mjs dir` reads it);
// BENCH_KEEP_DB=1 (with DATABASE_URL: the bench database is kept after the run, its name logged);
// BENCH_SQL_DUMP=dir (each read row's captured statement sets, as its SQL alone runs them, in dir/<row>.sql);
// BENCH_OBSERVABILITY_ROUNDS (default 3: the observability rows' rounds, each mode's median kept);
// BENCH_REPLICA=1 (the read rows with and without a read replica, same run: the database server is
// then a PostgreSQL 15 primary the bench makes itself from /usr/lib/postgresql/15/bin, which
// scripts/postgres-tools.sh installs, instead of DATABASE_URL's or the embedded one; once the read
// rows are set up it takes a streaming hot standby with pg_basebackup -R -X stream, starts a second
// server whose DATABASE_READ_URL points at it, and measures each read row on the first server then
// on the second, with the standby's CPU, transactions and replay lag; the table "Reads with and
// without a replica (same run)" is printed and goes into the report; the standby and the second
// server stop after the read rows, both clusters at the end; bench/lib/replica*.mjs);
// BENCH_BEFORE=<commit> (every write and read row, and the feed page, before and after, same run:
// that commit is built once in a cache (bench/lib/baseline-build.mjs), a server of it runs beside
// this build's on the same database with MIGRATE_ON_BOOT=false, and each such row is measured on both servers in
// BENCH_BEFORE_ROUNDS rounds (default 2) that alternate which goes first, each run started once
// autovacuum is idle and right after a checkpoint, so that the machine's drift falls on both alike;
// the table "Rows before and after" goes into the report).
// Exit code 1 when something failed to run (a missed target is reported, not a failure).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { foldMemberCounts, runDbCeiling, writePathStatements } from './lib/db-ceiling.mjs';
import { measureHttp, stopLoad } from './lib/load.mjs';
import { explain, mainStatement } from './lib/plans.mjs';
import { baselineBuild } from './lib/baseline-build.mjs';
import { migrate, openDatabase } from './lib/postgres.mjs';
import { freePort, isRunning, loadAverage, log, percentile, procMb, sleep, startNode, stopNode, waitHttp } from './lib/processes.mjs';
import { permissionScenarios } from './lib/permission-scenarios.mjs';
import { readScenarios } from './lib/read-scenarios.mjs';
import { missingPostgres15, replicaClusters } from './lib/replica.mjs';
import { startReplicaReads } from './lib/replica-reads.mjs';
import { renderBeforeAfter, renderReplicaTable, renderReport } from './lib/report.mjs';
import { activeMember, friendOffsets, GAME_ID, groupUuid, outsider, seed, seedSizes, visibilityOf } from './lib/seed.mjs';
import { feedPositions, measureReplay, seedFeed } from './lib/feed.mjs';
import { measureStream } from './lib/stream.mjs';
import { measureNotificationStreams } from './lib/notification-stream.mjs';
import { notificationReadScenarios } from './lib/notification-reads.mjs';
import { measureWebhooks, startReceiver } from './lib/webhooks.mjs';
import { ERASURE_SIZE, measureErasure } from './lib/erasure.mjs';
import { EXPORT_SIZE, measureExport } from './lib/export.mjs';
import { measureNameMatch, policyWords } from './lib/name-match.mjs';
import { measureObservability } from './lib/observability.mjs';
import { findPgbench, runPgbench } from './lib/pgbench.mjs';
import { searchCeiling, searchStatement } from './lib/search.mjs';
import { startCaptureServer } from './lib/capture.mjs';
import { runSqlCeiling } from './lib/sql-ceiling.mjs';
import { statementStats, writeCounters } from './lib/statements.mjs';
import { canDissect, dissectionLines, dissectJoinLeave, walWindow } from './lib/wal-dissect.mjs';
import { cycle, writeScenarios } from './lib/write-scenarios.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench', 'results', 'latest.md');
const num = (name, def) => {
  const v = process.env[name];
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number`);
  return n;
};
const CONF = {
  durationS: num('BENCH_DURATION', 10),
  warmupS: num('BENCH_WARMUP', 3),
  connections: num('BENCH_CONNECTIONS', 50),
  scale: num('BENCH_SCALE', 1),
  observabilityRounds: num('BENCH_OBSERVABILITY_ROUNDS', 3),
  aloneS: 2,
  subscribers: 1000,
  streamJoins: 200,
  streamIntervalMs: 50,
  notificationIntervalMs: 10,
  deliveries: 10_000,
  feedEvents: 1_000_000,
  feedConnections: 4,
  // A game's expensive reads (a search among them) run five at once on an instance with the default
  // pool (GAME_READ_CONCURRENCY, half of DATABASE_POOL_MAX = 10), twenty more wait in line and the
  // rest are answered 429 at once: fifty connections of one game would measure its bulkhead.
  searchConnections: 5,
  replayEvents: 100_000,
  only: process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null,
};
const wanted = (key) => !CONF.only || CONF.only.test(key);
const REPLICA = Boolean(process.env.BENCH_REPLICA) && process.env.BENCH_REPLICA !== '0';
const BEFORE = process.env.BENCH_BEFORE || null;
const BEFORE_ROUNDS = Math.max(1, Number(process.env.BENCH_BEFORE_ROUNDS) || 2);
const ADMIN_TOKEN = `jadm_bench_${randomBytes(16).toString('hex')}`;

// ---- what this run started, so that it can always be stopped ----
// (`clusters` and `replicaServer`: BENCH_REPLICA=1's primary and standby, and its second server;
// `before`: BENCH_BEFORE's server of the earlier commit.)
const started = { db: null, clients: [], receiver: null, server: null, before: null, ceilings: [], clusters: null, replicaServer: null, capture: null };
let cleaning = null;
function cleanup() {
  cleaning ??= (async () => {
    stopLoad();
    await Promise.all([stopNode(started.server), stopNode(started.before), stopNode(started.replicaServer), ...started.ceilings.map((p) => stopNode(p)), started.capture?.stop()]);
    await started.receiver?.close().catch(() => undefined);
    for (const c of started.clients) await c.end().catch(() => undefined);
    await started.db?.stop();
    await started.clusters?.stop();
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: stopping everything`);
    cleanup().finally(() => process.exit(130));
  });
}
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (err) => {
    log(`failed (${event}): ${err?.stack ?? err}`);
    cleanup().finally(() => process.exit(1));
  });
}

async function main() {
  const t0 = performance.now();
  const startedAt = new Date();
  const loadBefore = loadAverage();
  if (!existsSync(join(ROOT, 'dist/src/main.js'))) throw new Error('dist/src/main.js is missing: run `npm run bench` (it builds first)');
  // First, on a quiet machine: it needs neither the database nor the server.
  const nameMatch = wanted('nameMatch') ? measureNameMatch(ROOT) : null;
  if (nameMatch) log(`name matcher: ${nameMatch.words} words, a ${nameMatch.nameLength}-character name: p50 ${nameMatch.p50.toFixed(4)} ms, p99 ${nameMatch.p99.toFixed(4)} ms a check (compiled in ${nameMatch.compileMs.toFixed(1)} ms)`);
  // Built before anything starts: npm ci and tsc would weigh on every figure after them.
  const before = BEFORE ? baselineBuild(ROOT, BEFORE, log) : null;
  const sizes = seedSizes(CONF.scale);
  const searchKeys = ['searchText', 'searchTags', 'searchText1M', 'searchTags1M'];
  // The million-group game costs its seed only when one of its rows is measured.
  if (!['searchText1M', 'searchTags1M'].some(wanted)) sizes.searchGroups = 0;

  // ---- 1-2. Postgres, schema, dataset ----
  if (REPLICA) {
    const missing = missingPostgres15();
    if (missing) throw new Error(missing);
    if (process.env.DATABASE_URL) log('BENCH_REPLICA=1: DATABASE_URL is left aside, the bench makes its own primary and standby');
    started.clusters = replicaClusters(ROOT);
  }
  const db = (started.db = await openDatabase(ROOT, { serverUrl: started.clusters && (await started.clusters.startPrimary()).serverUrl }));
  await migrate(ROOT, db.url);
  const [q, q2] = [new pg.Client({ connectionString: db.url }), new pg.Client({ connectionString: db.url })];
  started.clients.push(q, q2);
  // A connection dropped by the server (Ctrl-C reaches Postgres too) fails the query in flight;
  // without a listener the 'error' event would kill this process before it cleans up.
  for (const c of [q, q2]) c.on('error', (err) => log(`database connection lost: ${err.message}`));
  await q.connect();
  await q2.connect();
  log('seeding');
  const seeded = await seed([q, q2], sizes);
  await q2.end();
  started.clients.splice(started.clients.indexOf(q2), 1);
  log(`seeded in ${(seeded.totalMs / 1000).toFixed(1)} s (${seeded.size})`);
  const writeStatementStats = await statementStats(q);
  const writeCounts = await writeCounters(q);
  if (!writeStatementStats) log('pg_stat_statements is not loaded on this server: the write scenarios are shown without their statements');

  // ---- 3. the ceilings of the write path: our SQL alone, then pgbench ----
  // Each run of BENCH_BEFORE's pairs starts alike: no autovacuum at work (waited for, up to a
  // minute: after the seed it rewrites the visibility of millions of rows) and, where the bench may,
  // right after a checkpoint, so that neither build's run takes the next checkpoint's images alone.
  const quietDatabase = async () => {
    const t = performance.now();
    while (performance.now() - t < 60_000) {
      const { n } = (await q.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`)).rows[0];
      if (!n) break;
      await sleep(500);
    }
    if (db.superuser) await q.query('CHECKPOINT');
  };
  // Join/leave pairs: one user per public group, not a member of it; one worker per pair at a time.
  const pairs = [];
  for (let g = 1; pairs.length < 4 * CONF.connections + 2; g++) {
    if (visibilityOf(g) === 'public') pairs.push({ groupId: groupUuid(g), userId: `p${outsider(sizes, g)}` });
  }
  const statementsPair = pairs.pop();
  const streamGroup = pairs.pop().groupId;
  // The stream rows admit 200 new members each: the search data's cap (1 group in 4) must not apply.
  await q.query('UPDATE groups SET max_members = NULL WHERE id = $1', [streamGroup]);
  // Every join and leave writes a delivery for this endpoint (the write path includes deliveries);
  // it points at the local receiver, which the server's worker will deliver to.
  const receiver = (started.receiver = await startReceiver());
  const writeEndpointId = (
    await q.query(
      `INSERT INTO webhook_endpoints (id, game_id, url, events, secret) VALUES (svc_uuidv7(), $1, $2, $3, $4) RETURNING id`,
      [GAME_ID, receiver.url, ['member.joined', 'member.left'], randomBytes(32).toString('base64url')],
    )
  ).rows[0].id;
  const writeStatements = await writePathStatements(ROOT, db.url, GAME_ID, statementsPair);
  const dbCeilings = [];
  for (const connections of wanted('dbCeiling') ? [CONF.connections, 10] : []) {
    // With BENCH_BEFORE, both builds' statements in BEFORE_ROUNDS rounds alternating which goes
    // first; this build's row is its best round, the earlier's shown beside it.
    const builds = before ? [{ root: ROOT, label: 'this build' }, { root: before.dir, label: before.label }] : [{ root: ROOT, label: 'this build' }];
    const runs = new Map(builds.map((b) => [b.label, []]));
    for (let round = 0; round < (before ? BEFORE_ROUNDS : 1); round++) {
      for (const b of round % 2 ? [...builds].reverse() : builds) {
        // No server runs yet to fold the member counters' deltas, which the joins' cap checks sum:
        // folded here, so that no run inherits the last one's.
        await foldMemberCounts(ROOT, db.url);
        await quietDatabase();
        log(`our SQL alone: join + leave on raw pg, ${connections} clients, ${CONF.durationS} s${before ? ` (${b.label}, round ${round + 1})` : ''}`);
        const r = await runDbCeiling({
          root: b.root,
          url: db.url,
          gameId: GAME_ID,
          entries: pairs,
          connections,
          durationS: CONF.durationS,
          warmupS: CONF.warmupS,
          postmasterPid: db.postmasterPid,
        });
        log(`  ${Math.round(r.rps)} transactions/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, PostgreSQL CPU ${r.cpu?.postgres && r.rps ? ((r.cpu.postgres / 100 / r.rps) * 1000).toFixed(3) : '?'} ms a transaction`);
        if (r.errors) throw new Error(`our SQL alone: ${r.errors} errors, first: ${r.firstError}`);
        runs.get(b.label).push(r);
      }
    }
    const best = (label) => runs.get(label).reduce((a, b) => (b.rps > a.rps ? b : a));
    dbCeilings.push({ connections, ...best('this build'), ...(before ? { before: { label: before.label, ...best(before.label) } } : {}) });
  }
  // Nobody delivered those: the server's worker must not start on them.
  await q.query('DELETE FROM webhook_deliveries');
  const pgbench = wanted('pgbench') ? await runPgbench({ serverUrl: db.serverUrl, name: db.name, postmasterPid: db.postmasterPid }) : null;
  if (pgbench) log(`  ${Math.round(pgbench.tps)} transactions/s, latency average ${pgbench.latencyMs} ms, ${pgbench.failed} failed`);
  else if (wanted('pgbench')) log('pgbench is not on the PATH: the write scenarios are shown without their ratio to it');

  // ---- 4. the server and the ceilings ----
  const [port, httpPort, nestPort] = [await freePort(), await freePort(), await freePort()];
  const base = `http://127.0.0.1:${port}`;
  const serviceEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
  };
  // The first server is the one without a replica, whatever this shell has.
  if (REPLICA) delete serviceEnv.DATABASE_READ_URL;
  // startNode's arguments for a server of this build and these settings on `port` (`node` flags first).
  const serverArgs = (port, extra, nodeFlags = []) => [[...nodeFlags, join(ROOT, 'dist/src/main.js')], { cwd: ROOT, env: { ...serviceEnv, PORT: String(port), ...extra } }];
  const startServer = () => startNode('guildhall', ...serverArgs(port, {}, process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []));
  started.server = startServer();
  const httpCeiling = startNode('HTTP ceiling', [join(ROOT, 'bench/ceilings/http-server.mjs')], { cwd: ROOT, env: { ...process.env, PORT: String(httpPort) } });
  const nestCeiling = startNode('framework ceiling', [join(ROOT, 'bench/ceilings/minimal-nest-app.mjs')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(nestPort), NODE_ENV: 'production' },
  });
  started.ceilings.push(httpCeiling, nestCeiling);
  await Promise.all([
    waitHttp(started.server, `${base}/`),
    waitHttp(httpCeiling, `http://127.0.0.1:${httpPort}/`),
    waitHttp(nestCeiling, `http://127.0.0.1:${nestPort}/v1/permissions/check`),
  ]);
  let serverPid = started.server.pid;
  log(`server pid ${serverPid} on ${base}`);
  // BENCH_BEFORE: the earlier commit's server, on the schema this build migrated (an earlier build
  // of the same release runs on it, as in a rolling upgrade), for the rows measured in pairs (runPaired).
  let beforeBase = null;
  if (before) {
    const beforePort = await freePort();
    beforeBase = `http://127.0.0.1:${beforePort}`;
    // With V8's pretenuring off, as this build runs (src/heap-tuning.ts): a build from before a71d114
    // drew at random, per process, a state costing it up to twice the CPU a request, which decided
    // a pair's ratio more than the change measured.
    started.startBefore = () => startNode(`guildhall ${before.label}`, ['--no-allocation-site-pretenuring', before.main], { cwd: before.dir, env: { ...serviceEnv, PORT: String(beforePort), MIGRATE_ON_BOOT: 'false' } });
    started.before = started.startBefore();
    await waitHttp(started.before, `${beforeBase}/`);
    log(`the server of ${before.label} (BENCH_BEFORE), pid ${started.before.pid}, on ${beforeBase}`);
  }

  const call = async (method, path, body, expect, token) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    if (expect !== undefined && r.status !== expect) throw new Error(`${method} ${path}: expected ${expect}, got ${r.status} ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : undefined;
  };
  const { key } = await call('POST', `/v1/admin/games/${GAME_ID}/api-keys`, undefined, 201, ADMIN_TOKEN);
  const api = (method, path, body, expect) => call(method, path, body, expect, key);
  const auth = { authorization: `Bearer ${key}` };

  const dbTransactions = async () =>
    Number((await q.query('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0].n);
  const opts = (pid) => ({
    dbTransactions: pid === serverPid || pid === started.before?.pid ? dbTransactions : undefined,
    connections: CONF.connections,
    durationS: CONF.durationS,
    warmupS: CONF.warmupS,
    aloneS: CONF.aloneS,
    serverPid: pid,
    postmasterPid: db.postmasterPid,
  });
  const results = { nameMatch };
  // `as`: the key the figures are kept under, when not the scenario's own (BENCH_BEFORE's twin rows).
  const measure = async (keyName, name, target, pid = serverPid, extra = {}, as = keyName) => {
    if (!wanted(keyName)) return;
    for (const server of [started.server, started.before]) {
      if (server && pid === server.pid && !isRunning(server)) throw new Error(`the server ${server.name} died:\n${server.tail()}`);
    }
    log(`measuring: ${name}`);
    results[as] = { name, ...(await measureHttp(target, { ...opts(pid), ...extra })) };
    const r = results[as];
    const perRequest = (pct) => ((pct / 100) * CONF.durationS * 1000) / r.requests;
    log(
      `  ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}, RSS ${Math.round(r.rss)} MB;` +
        ` CPU ms per request: server ${perRequest(r.cpu.server).toFixed(3)}, Postgres ${perRequest(r.cpu.postgres).toFixed(3)}; statements ${r.xactsPerRequest.toFixed(1)}`,
    );
    if (r.counters) {
      const c = r.counters;
      r.walBytesPerRequest = c.wal / r.requests;
      const hot = c.deliveryUpdates ? `; webhook_deliveries: ${Math.round(c.deliveryUpdates)} updates, ${Math.round((100 * c.deliveryHotUpdates) / c.deliveryUpdates)} % HOT` : '';
      log(`  WAL ${Math.round(r.walBytesPerRequest)} bytes a request (pg_stat_wal, the whole cluster)${hot}`);
    }
    if (Array.isArray(r.walRecords)) {
      log('  the whole cluster\'s WAL a request over the run, by record of 5 bytes a request or more (bytes, then images):');
      for (const x of r.walRecords.filter((w) => w.bytes + w.fpi >= 5)) log(`    ${x.rmgr} ${x.type}: ${x.records.toFixed(2)} records, ${Math.round(x.bytes)} bytes, ${Math.round(x.fpi)} images`);
    } else if (r.walRecords) log(`  the run's WAL by record: not readable (${r.walRecords.error})`);
    if (r.statements) {
      log(`  statement execution ${r.statements.msPerRequest.toFixed(3)} ms and ${Math.round(r.statements.buffersPerRequest)} shared buffers a request; the most of it:`);
      for (const x of r.statements.statements.slice(0, 4)) {
        const plan = x.planMsPerCall ? ` + plan ${x.planMsPerCall.toFixed(3)} ms` : '';
        log(`    ${x.perRequest.toFixed(2)}× ${x.meanMs.toFixed(3)} ms${plan} (${Math.round(x.share * 100)} %) ${x.sql.slice(0, 110)}`);
      }
    }
  };

  await measure('httpCeiling', 'HTTP ceiling: bare node:http, fixed JSON', { url: `http://127.0.0.1:${httpPort}/`, headers: auth }, httpCeiling.pid);
  await measure(
    'frameworkCeiling',
    'Framework ceiling: minimal NestJS + Fastify, one guard, one interceptor, fixed JSON',
    { url: `http://127.0.0.1:${nestPort}/v1/permissions/check`, headers: auth },
    nestCeiling.pid,
  );
  await stopNode(httpCeiling);

  // ---- 5. scenarios ----
  const G0 = groupUuid(0);
  const permUser = 'p123';
  const role = await api('POST', `/v1/groups/${G0}/roles`, { name: 'officer', priority: 10 }, 201);
  await api('POST', `/v1/roles/${role.id}/permissions`, { permission: 'guild.kick' }, 200);
  await api('POST', `/v1/groups/${G0}/members/${permUser}/roles/${role.id}`, undefined, 200);
  const hitPath = `/v1/permissions/check?userId=${permUser}&groupId=${G0}&permission=guild.kick`;
  const hit = await api('GET', hitPath, undefined, 200);
  if (!(hit.allowed === true && hit.source === 'role' && hit.viaRoleId === role.id)) throw new Error(`permission check: unexpected ${JSON.stringify(hit)}`);

  await measure('permHit', 'Permission check, cache hit', { url: `${base}${hitPath}`, headers: auth });
  // The framework ceiling again, right after the check it is the yardstick of: on a shared machine
  // the throughput of one run drifts from the next, and the ratio takes the mean of both runs.
  await measure(
    'frameworkCeilingAgain',
    'Framework ceiling, measured again right after the cache-hit check',
    { url: `http://127.0.0.1:${nestPort}/v1/permissions/check`, headers: auth },
    nestCeiling.pid,
  );
  await stopNode(nestCeiling);
  // A read row's SQL alone: the statements a capture server really sends for 100 of the row's
  // requests (bench/lib/capture.mjs), then pgbench -f with them (bench/lib/sql-ceiling.mjs), same
  // connections and duration, right after the row's HTTP run.
  const typeNames = new Map();
  const typeName = async (oid) => {
    if (!typeNames.has(oid)) typeNames.set(oid, (await q.query('SELECT format_type($1, NULL) AS t', [oid])).rows[0].t);
    return typeNames.get(oid);
  };
  const sqlAlone = async (keyName, target) => {
    if (!results[keyName] || !findPgbench()) return;
    started.capture ??= await startCaptureServer({ dbUrl: db.url, serverArgs, typeName });
    const { scripts, pgOptions, requests, mode } = await started.capture.capture(target, 100);
    // A row answered from memory sends no statement: pgbench would only time empty transactions.
    if (scripts.every((x) => x.statements.length === 0)) {
      log(`its SQL alone: none, ${requests} captured requests sent no statement`);
      results[keyName].fromMemory = true;
      return;
    }
    log(`its SQL alone: pgbench -f -M ${mode}, ${scripts.length} statement sets of ${requests} captured requests, ${CONF.connections} clients, ${CONF.durationS} s`);
    if (process.env.BENCH_SQL_DUMP) writeFileSync(join(process.env.BENCH_SQL_DUMP, `${keyName}.sql`), scripts.map((x) => `-- weight ${x.weight}\n${x.statements.join(';\n')}\n`).join('\n'));
    const ceiling = (sets) =>
      runSqlCeiling({ url: db.url, scripts: sets, pgOptions, mode, connections: CONF.connections, durationS: CONF.durationS, warmupS: CONF.warmupS, postmasterPid: db.postmasterPid });
    // A background job the capture did not learn in its idle window (one that runs every few
    // seconds) lands in a single request's window: when pgbench cannot replay such a set, the sets
    // only one request sent are left out and the rest run again.
    const c = await ceiling(scripts).catch(async (err) => {
      const common = scripts.filter((x) => x.weight > 1);
      if (!common.length || common.length === scripts.length) throw err;
      log(`  pgbench failed (${err.message.split('\n')[0].slice(0, 120)}): again without the ${scripts.length - common.length} sets a single request sent`);
      return ceiling(common);
    });
    const perRequest = scripts.reduce((sum, x) => sum + x.statements.length * x.weight, 0) / requests;
    results[keyName].ceiling = { ...c, requests, statementsPerRequest: perRequest };
    log(`  ${Math.round(c.tps)} requests' statements/s (${perRequest.toFixed(1)} statements each), p50 ${c.p50.toFixed(1)} ms, p99 ${c.p99.toFixed(1)} ms; ratio ${(results[keyName].rps / c.tps).toFixed(2)}`);
  };
  const nonce = randomBytes(4).toString('hex');
  let missN = 0;
  const permMissTarget = {
    url: base,
    headers: auth,
    // A member's whole grant profile is cached, so a new key alone would be a hit: a different
    // member of the big group each request (none comes back within the run) is a miss.
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/permissions/check?userId=p${(missN++ * 7919) % sizes.users}&groupId=${G0}&permission=miss.${nonce}` }) }],
  };
  await measure('permMiss', 'Permission check, cache miss (a member whose profile is not cached: another member of the big group each request)', permMissTarget);
  await sqlAlone('permMiss', permMissTarget);

  // The write scenarios' work items (see bench/lib/write-scenarios.mjs): many groups, one hot group.
  const poolSize = 4 * CONF.connections;
  const writeKeys = ['joinLeaveHot', 'joinLeaveCapped', 'joinLeaveCappedHot', 'joinLeaveExclusive', 'groupCreate', 'groupCreatePolicy', 'inviteAccept', 'inviteAcceptHot', 'banUnban', 'banUnbanHot', 'roleAssign', 'roleAssignHot', 'overrideSet', 'overrideSetHot', 'friendRequest', 'inviteNotifyNobody', 'inviteNotify'];
  const writes = writeKeys.some(wanted);
  const hotGroup = writes ? (await api('POST', '/v1/groups', { kind: 'guild', name: 'hot', visibility: 'public' }, 201)).id : null;
  const hot = Array.from({ length: poolSize }, (_, i) => ({ groupId: hotGroup, userId: `p${1000 + i}` }));
  const hotMembers = [];
  const members = [];
  if (writes) {
    const hotRole = await api('POST', `/v1/groups/${hotGroup}/roles`, { name: 'bench', priority: 1 }, 201);
    for (let i = 0; i < poolSize; i++) {
      const userId = `p${2000 + i}`;
      await api('POST', `/v1/groups/${hotGroup}/join`, { userId }, 201);
      hotMembers.push({ groupId: hotGroup, userId, roleId: hotRole.id });
    }
    for (let g = 1; members.length < poolSize; g++) {
      const groupId = groupUuid(g);
      const roleId = (await api('POST', `/v1/groups/${groupId}/roles`, { name: 'bench', priority: 1 }, 201)).id;
      members.push({ groupId, userId: `p${activeMember(sizes, g)}`, roleId });
    }
  }
  const friendPairs = [];
  {
    const near = new Set(friendOffsets(sizes).flatMap((o) => [o, sizes.users - o]));
    let offset = Math.floor(sizes.users / 3);
    while (near.has(offset)) offset++;
    const used = new Set();
    for (let i = 7; friendPairs.length < poolSize; i += 13) {
      const [a, b] = [i % sizes.users, (i + offset) % sizes.users];
      if (used.has(a) || used.has(b)) continue;
      used.add(a).add(b);
      friendPairs.push({ userId: `p${a}`, otherId: `p${b}` });
    }
  }
  const creators = Array.from({ length: poolSize }, (_, i) => `p${3000 + i}`);
  // Groups that fill up and one group per player (EXTENSIONS X5): groups of their own, far from full,
  // so that every join succeeds and what is measured is the cost of the rules' checks and locks.
  const capped = [];
  const exclusive = [];
  let cappedHot = [];
  if (['joinLeaveCapped', 'joinLeaveCappedHot', 'joinLeaveExclusive'].some(wanted)) {
    await call('PATCH', `/v1/admin/games/${GAME_ID}/config`, { config: { groups: { exclusiveKinds: ['bench-clan'] } } }, 200, ADMIN_TOKEN);
    for (let i = 0; i < poolSize; i++) {
      const c = await api('POST', '/v1/groups', { kind: 'guild', name: `capped ${i}`, visibility: 'public', maxMembers: 50, creatorUserId: `p${5000 + i}` }, 201);
      capped.push({ groupId: c.id, userId: `p${6000 + i}` });
      const e = await api('POST', '/v1/groups', { kind: 'bench-clan', name: `clan ${i}`, visibility: 'public', creatorUserId: `p${7000 + i}` }, 201);
      exclusive.push({ groupId: e.id, userId: `p${8000 + i}` });
    }
    const hotCapped = await api('POST', '/v1/groups', { kind: 'guild', name: 'hot capped', visibility: 'public', maxMembers: 100_000 }, 201);
    cappedHot = Array.from({ length: poolSize }, (_, i) => ({ groupId: hotCapped.id, userId: `p${9000 + i}` }));
  }
  // EXTENSIONS X10: a second game whose name policy holds the name matcher row's 1,000 words, half
  // blocked and half reserved, for groupCreatePolicy right after groupCreate.
  let policyHeaders = null;
  if (wanted('groupCreatePolicy')) {
    const policyGame = await call('POST', '/v1/admin/games', { name: 'bench name policy' }, 201, ADMIN_TOKEN);
    const words = policyWords();
    const names = { blocked: words.slice(0, words.length / 2), reserved: words.slice(words.length / 2) };
    await call('PATCH', `/v1/admin/games/${policyGame.id}/config`, { config: { moderation: { names } } }, 200, ADMIN_TOKEN);
    const tried = await call('POST', `/v1/admin/games/${policyGame.id}/names/test`, { text: 'bench group 1234567890' }, 200, ADMIN_TOKEN);
    if (!tried.allowed) throw new Error(`the bench name policy refuses the bench group names: ${JSON.stringify(tried.matches)}`);
    const { key: policyKey } = await call('POST', `/v1/admin/games/${policyGame.id}/api-keys`, undefined, 201, ADMIN_TOKEN);
    policyHeaders = { authorization: `Bearer ${policyKey}` };
  }
  // Repairs go through the server being measured: with BENCH_BEFORE the other one is stopped.
  let repairBase = base;
  const scenarios = writeScenarios({ base: () => repairBase, headers: auth, many: pairs, hot, members, hotMembers, friendPairs, creators, capped, cappedHot, exclusive, policyHeaders });
  const writeTarget = (s, at) => ({ headers: s.headers ?? auth, ...cycle({ base: at, headers: auth, ...s }) });
  // While one build of BENCH_BEFORE's pair is measured the other is stopped (SIGSTOP): both run a
  // webhook worker on the same database, and the idle one, woken by the loaded one's commits,
  // claimed that server's deliveries first (each build's runs showed the other's claims). The
  // measured server drains what its run left due before the other resumes.
  // The service's own count of due deliveries (the backlog gauge's), from the build.
  const { WEBHOOK_BACKLOG_SQL } = createRequire(join(ROOT, 'package.json'))(join(ROOT, 'dist/src/webhooks/webhooks.repository.js'));
  const alone = async (measured, run) => {
    const other = measured === started.server ? started.before : started.server;
    other.child.kill('SIGSTOP');
    try {
      await run();
      const t = performance.now();
      while (performance.now() - t < 30_000) {
        const { due } = (await q.query(WEBHOOK_BACKLOG_SQL)).rows[0];
        if (!due) break;
        await sleep(200);
      }
    } finally {
      other.child.kill('SIGCONT');
    }
  };
  // A row on this build's server; with BENCH_BEFORE, in BEFORE_ROUNDS rounds alternating which
  // build goes first (this, before; before, this; ...), each run kept in results.beforeAfter[key]
  // and the first of this build's as the row's figures. `targetAt(base)`: the row's target on a server.
  // Both servers start afresh before a pair: a process's past work moves its figures. This build's
  // server, which answers the bench's setup (a walk of 1,000 member pages, the write rows' groups),
  // spent 0.15 ms more CPU a request of the group audit than one that had not, whatever the build
  // (its minor garbage collections took five times as long: V8's heap keeps what that work taught it).
  const restartPair = async () => {
    await Promise.all([stopNode(started.server), stopNode(started.before)]);
    [started.server, started.before] = [startServer(), started.startBefore()];
    await Promise.all([waitHttp(started.server, `${base}/`), waitHttp(started.before, `${beforeBase}/`)]);
    serverPid = started.server.pid;
  };
  const runPaired = async (key, name, targetAt, options) => {
    if (!started.before) return measure(key, name, targetAt(base), serverPid, options);
    if (!wanted(key)) return;
    await restartPair();
    const runs = { name, this: [], before: [] };
    for (let round = 0; round < BEFORE_ROUNDS; round++) {
      for (const which of round % 2 ? ['before', 'this'] : ['this', 'before']) {
        const [at, pid, label, proc] = which === 'this' ? [base, serverPid, 'this build', started.server] : [beforeBase, started.before.pid, before.label, started.before];
        await quietDatabase();
        repairBase = at;
        await alone(proc, () => measure(key, `${name} (${label}, round ${round + 1})`, targetAt(at), pid, options, 'beforeAfterRun'));
        runs[which].push(results.beforeAfterRun);
      }
    }
    repairBase = base;
    delete results.beforeAfterRun;
    results[key] = { ...runs.this[0], name };
    (results.beforeAfter ??= {})[key] = runs;
  };
  const runWrite = (s, extra = {}) =>
    runPaired(s.key, s.name, (at) => writeTarget(s, at), { statements: writeStatementStats, counters: writeCounts, ...extra });
  const deliveredBefore = receiver.state.requests;
  const lags = (receiver.state.lags = []);
  // The join row's WAL by record over its whole run too: what concurrency adds to the dissected join.
  await runWrite(scenarios[0], (await canDissect(q)) ? { walWindow: walWindow(q) } : {});
  receiver.state.lags = null;
  // Rows pending and deliveries not taken up yet alike (the join row's endpoint is the only one enabled).
  const { due, waiting } = (await q.query(WEBHOOK_BACKLOG_SQL)).rows[0];
  const backlog = due + waiting;
  lags.sort((a, b) => a - b);
  if (results.joinLeave) {
    const w = (results.joinLeave.webhook = { delivered: receiver.state.requests - deliveredBefore, backlog, lagP50: percentile(lags, 50), lagP99: percentile(lags, 99) });
    log(`join then leave's webhook: ${w.delivered} delivered, ${w.backlog} still pending; occurredAt to arrival p50 ${w.lagP50} ms, p99 ${w.lagP99} ms`);
  }
  await api('PATCH', `/v1/webhooks/${writeEndpointId}`, { disabled: true }, 200);

  // The read rows (bench/lib/read-scenarios.mjs); under BENCH_REPLICA=1 each is measured again
  // right after, on a second server reading from a standby taken now (bench/lib/replica-reads.mjs).
  const reads = await readScenarios({ api, call, q, sizes, key, adminToken: ADMIN_TOKEN, wanted });
  const notificationReads = ['notificationCounts', 'notificationsFirst'].some(wanted) ? await notificationReadScenarios({ q, api, sizes, key }) : null;
  const pageParams = { ...reads.pageParams, ...notificationReads?.pageParams, permMiss: { gameId: GAME_ID, groupId: G0, userId: permUser } };
  const permissionKeys = ['permBatch', 'permBatchCold', 'permEffective', 'permGroups', 'permMembers'];
  const permissions = permissionKeys.some(wanted) ? await permissionScenarios({ api, q, key, G0, sizes }) : null;
  const rowsFor = (at) => [...(permissions?.rowsFor(at) ?? []), ...reads.rowsFor(at), ...(notificationReads?.rowsFor(at) ?? [])];
  const readRows = rowsFor(base).filter((row) => wanted(row.key));
  const replicaReads =
    REPLICA && readRows.length
      ? await startReplicaReads({ primary: started.clusters, db, serverArgs, rowsFor, measureOpts: opts(serverPid), started })
      : null;
  for (const row of readRows) {
    const connections = row.search ? CONF.searchConnections : CONF.connections;
    const name = row.search ? `${row.name} (${connections} connections: a game's expensive-read slots on an instance)` : row.name;
    const options = row.search ? { connections } : {};
    if (started.before) await runPaired(row.key, name, (at) => (at === base ? row : rowsFor(at).find((r) => r.key === row.key)).target, options);
    else await measure(row.key, name, row.target, serverPid, { ...replicaReads?.standbyOpts, ...options });
    await replicaReads?.measure({ ...row, name }, results[row.key], options);
    if (!row.search) await sqlAlone(row.key, row.target);
    // Group search: then the same queries' statements alone through pgbench -f on as many connections.
    if (row.search && findPgbench()) {
      log(`its SQL alone: pgbench -f, ${connections} clients, ${CONF.durationS} s`);
      results[row.key].ceiling = await searchCeiling({
        root: ROOT,
        db: q,
        url: db.url,
        gameId: row.search.gameId,
        queries: row.search.queries,
        connections,
        durationS: CONF.durationS,
        warmupS: CONF.warmupS,
        postmasterPid: db.postmasterPid,
      });
      const c = results[row.key].ceiling;
      log(`  ratio ${(results[row.key].rps / c.tps).toFixed(2)} × its SQL alone`);
    }
  }
  await started.capture?.stop();
  started.capture = null;
  if (replicaReads) {
    results.replicaReads = await replicaReads.finish();
    process.stderr.write(`\n${renderReplicaTable(results.replicaReads).join('\n')}\n\n`);
  }

  // The other write scenarios come after the reads, so that the reads see the dataset as seeded; the
  // endpoint of the join scenario delivers their member events again meanwhile.
  if (writes) {
    await api('PATCH', `/v1/webhooks/${writeEndpointId}`, { disabled: false }, 200);
    for (const s of scenarios.slice(1)) await runWrite(s);
    // EXTENSIONS X9: a notification's cost is the ratio of two rows measured one after the other,
    // which drifts with the machine by more than the 10 % it is judged by: two more rounds, each
    // in the other order, and the median of the three rounds' ratios. The rows shown are the first round's.
    if (results.inviteNotify && results.inviteNotifyNobody) {
      const [nobody, notify] = ['inviteNotifyNobody', 'inviteNotify'].map((k) => scenarios.find((x) => x.key === k));
      const first = { nobody: results.inviteNotifyNobody, notify: results.inviteNotify };
      const rounds = [first.notify.rps / first.nobody.rps];
      for (let i = 0; i < 2; i++) {
        await runWrite(notify);
        await runWrite(nobody);
        rounds.push(results.inviteNotify.rps / results.inviteNotifyNobody.rps);
      }
      results.inviteNotify = { ...first.notify, rounds };
      results.inviteNotifyNobody = first.nobody;
      log(`  notifying / notifying nobody, by round: ${rounds.map((x) => x.toFixed(2)).join(', ')}`);
    }
    await api('PATCH', `/v1/webhooks/${writeEndpointId}`, { disabled: true }, 200);
  }

  // One join and one leave dissected: the WAL of each request's own transaction, with the endpoint
  // of the join rows subscribed (its delivery rows are part of a join), one request at a time.
  if (wanted('walJoin')) {
    if (await canDissect(q)) {
      // 200 of each: an index page split (about 1.9 kB of WAL, one in a hundred or so inserts of an
      // index) then weighs on the mean as it does on the average join. Twenty moved it by up to 170
      // bytes from one run to the next, as two splits or none fell in the sample.
      const dissected = pairs.slice(0, 200);
      log(`one join and one leave, dissected with pg_walinspect, ${dissected.length} of each`);
      await api('PATCH', `/v1/webhooks/${writeEndpointId}`, { disabled: false }, 200);
      results.walJoin = await dissectJoinLeave({ q, api, items: dissected });
      await api('PATCH', `/v1/webhooks/${writeEndpointId}`, { disabled: true }, 200);
      for (const line of dissectionLines(results.walJoin)) log(`  ${line}`);
    } else {
      log('pg_walinspect is not available on this server: no dissected join');
    }
  }

  // ---- 6. live stream, webhooks ----
  if (wanted('stream')) {
  log(`live stream: ${CONF.subscribers} subscribers, ${CONF.streamJoins} joins every ${CONF.streamIntervalMs} ms`);
  results.stream = await measureStream({
    base,
    key,
    groupId: streamGroup,
    pid: serverPid,
    subscribers: CONF.subscribers,
    joins: CONF.streamJoins,
    intervalMs: CONF.streamIntervalMs,
    log,
  });
  log(`  p50 ${results.stream.p50.toFixed(1)} ms, p99 ${results.stream.p99.toFixed(1)} ms, RSS ${results.stream.rssAfter.toFixed(0)} MB`);
  await sleep(1000);
  }
  // ---- 6b. the game's event feed: 1 M retained events, a page of 1000, a replay, the game stream ----
  if (['feedPage', 'feedReplay', 'gameStream'].some(wanted)) {
    const count = Math.round(CONF.feedEvents * CONF.scale);
    log(`event feed: seeding ${count.toLocaleString('en-US')} events`);
    const seedMs = await seedFeed(q, GAME_ID, { count, groupId: groupUuid(1) });
    const { retained } = (await q.query('SELECT count(*)::int AS retained FROM journal WHERE type IS NOT NULL')).rows[0];
    results.feed = { seedMs, retained };
    if (wanted('feedPage')) {
      const afters = await feedPositions(q, GAME_ID, 1000, 1000);
      const first = await api('GET', `/v1/events/feed?limit=1000&after=${afters[0]}`, undefined, 200);
      if (first.items.length !== 1000) throw new Error(`feed page: ${first.items.length} items`);
      const name = `Event feed, a page of 1000 events at a random position (${retained.toLocaleString('en-US')} retained; ${CONF.feedConnections} connections)`;
      const pageAt = (at) => ({
        url: at,
        headers: auth,
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/events/feed?limit=1000&after=${afters[Math.floor(Math.random() * afters.length)]}` }) }],
      });
      await runPaired('feedPage', name, pageAt, { connections: CONF.feedConnections });
      const f = results.feedPage;
      log(`  ${Math.round(f.rps)} pages/s (${Math.round(f.rps * 1000)} events/s), p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms, alone p50 ${f.aloneP50.toFixed(1)} ms, errors ${f.errors}`);
    }
    if (wanted('feedReplay')) {
      const replayed = Math.min(CONF.replayEvents, count);
      const [after] = await feedPositions(q, GAME_ID, 1, replayed);
      log(`measuring: replay of ${replayed.toLocaleString('en-US')} events over the game stream`);
      results.feedReplay = await measureReplay({ base, key, after, count: replayed });
      log(`  ${Math.round(results.feedReplay.perS)} events/s (${results.feedReplay.seconds.toFixed(2)} s; first frame after ${results.feedReplay.firstMs.toFixed(0)} ms)`);
    }
    if (wanted('gameStream')) {
      log(`game stream: ${CONF.subscribers} subscribers on /v1/events, ${CONF.streamJoins} joins every ${CONF.streamIntervalMs} ms`);
      results.gameStream = await measureStream({
        base,
        key,
        groupId: streamGroup,
        path: '/v1/events',
        userPrefix: 'game-stream',
        pid: serverPid,
        subscribers: CONF.subscribers,
        joins: CONF.streamJoins,
        intervalMs: CONF.streamIntervalMs,
        log,
      });
      const g = results.gameStream;
      log(`  p50 ${g.p50.toFixed(1)} ms, p99 ${g.p99.toFixed(1)} ms, ${g.receipts} of ${g.expected} copies, ${g.duplicates} duplicates, RSS ${g.rssAfter.toFixed(0)} MB`);
      await sleep(1000);
    }
  }
  // ---- 6c. players' notification streams (EXTENSIONS X9): one stream each, one notification each ----
  if (wanted('notificationStreams')) {
    log(`notification streams: ${CONF.subscribers} players' streams, one targeted invitation each, ${CONF.notificationIntervalMs} ms apart`);
    const inviting = await api('POST', '/v1/groups', { kind: 'guild', name: 'notifying', visibility: 'public' }, 201);
    // Seeded players, far from the write scenarios' (whose ids start low).
    const players = Array.from({ length: CONF.subscribers }, (_, i) => `p${sizes.users - 1 - i}`);
    results.notificationStreams = await measureNotificationStreams({ base, key, db: q, groupId: inviting.id, players, pid: serverPid, intervalMs: CONF.notificationIntervalMs, log });
    const n = results.notificationStreams;
    log(
      `  p50 ${n.p50.toFixed(1)} ms, p99 ${n.p99.toFixed(1)} ms, max ${n.max.toFixed(1)} ms (from the transaction's start: p50 ${n.fromStartP50.toFixed(1)} ms, p99 ${n.fromStartP99.toFixed(1)} ms), ${n.receipts} of ${n.expected} received, ${n.duplicates} duplicates, ${n.strays} strays;` +
        ` RSS ${n.rssIdle.toFixed(0)} → ${n.rssSubscribed.toFixed(0)} with the streams, peak ${n.rssPeak.toFixed(0)} MB; server CPU ${n.serverCpu.toFixed(0)} %`,
    );
    await sleep(1000);
  }
  results.webhooks = [];
  for (const latencyMs of wanted('webhooks') ? [0] : []) {
    log(`webhooks: ${CONF.deliveries} deliveries, receiver answering after ${latencyMs} ms`);
    const r = await measureWebhooks({
      api,
      db: q,
      gameId: GAME_ID,
      groupId: streamGroup,
      receiver,
      latencyMs,
      deliveries: CONF.deliveries,
      timeoutS: 120,
      pid: serverPid,
      postmasterPid: db.postmasterPid,
    });
    log(`  ${r.delivered} delivered at ${Math.round(r.perS)}/s`);
    results.webhooks.push({ latencyMs, ...r });
  }
  if (wanted('erasure')) {
    log(`erasure: a player with ${ERASURE_SIZE.friends} friends, ${ERASURE_SIZE.memberships} memberships, ${ERASURE_SIZE.audit} audit entries and ${ERASURE_SIZE.events} events, while 10 writers join and leave their groups`);
    results.erasure = await measureErasure({ q, base, headers: auth, gameId: GAME_ID, users: sizes.users, log });
    const e = results.erasure;
    log(`  alone ${e.ms.toFixed(0)} ms; under load ${e.loadedMs.toFixed(0)} ms, ${e.writes} writes meanwhile, p99 ${e.duringP99.toFixed(1)} ms, longest ${e.duringMax.toFixed(0)} ms (before: p99 ${e.beforeP99.toFixed(1)} ms, longest ${e.beforeMax.toFixed(0)} ms)`);
  }
  if (wanted('export')) {
    log(`export: a player with ${EXPORT_SIZE.friends} friends, ${EXPORT_SIZE.audit} audit entries and ${EXPORT_SIZE.events} events`);
    results.export = await measureExport({ q, base, headers: auth, gameId: GAME_ID, users: sizes.users, pid: serverPid, serverArgs, log });
    const x = results.export;
    log(
      `  first byte after ${x.firstByteMs.toFixed(0)} ms, whole document (${x.documentMb.toFixed(1)} MB, ${x.chunks} chunks) after ${x.totalMs.toFixed(0)} ms; server RSS ${x.rssBefore.toFixed(0)} → peak ${x.rssPeak.toFixed(0)} MB` +
        ` (a tenth of that history, ${x.small.documentMb.toFixed(1)} MB: first byte ${x.small.firstByteMs.toFixed(0)} ms, RSS ${x.small.rssBefore.toFixed(0)} → peak ${x.small.rssPeak.toFixed(0)} MB);` +
        ` on a server whose JavaScript heap is capped at ${x.capped.heapMb} MB: ${x.capped.ok ? 'whole, byte for byte' : `failed (${x.capped.failure})`}, RSS peak ${x.capped.rssPeak.toFixed(0)} MB`,
    );
  }
  if (wanted('observability')) {
    results.observability = await measureObservability({
      serverArgs,
      hitPath,
      headers: auth,
      joinLeave: scenarios[0],
      measureOpts: { connections: CONF.connections, durationS: CONF.durationS, warmupS: CONF.warmupS, aloneS: 0, postmasterPid: db.postmasterPid },
      rounds: CONF.observabilityRounds,
    });
    for (const [key, m] of Object.entries(results.observability.modes)) {
      const vs = key === 'off' ? '' : `; × off: ${m.permRatio.toFixed(2)} / ${m.joinRatio.toFixed(2)}`;
      log(`  ${key}: medians ${Math.round(m.permRps)} checks/s (${m.permCpuUs.toFixed(0)} µs server CPU each), ${Math.round(m.joinRps)} joins or leaves/s${vs}`);
    }
  }
  const serverHwm = procMb(serverPid, 'VmHWM');
  if (CONF.only) {
    if (results.beforeAfter) process.stderr.write(`\n${renderBeforeAfter(results.beforeAfter, before.label).join('\n')}\n`);
    log(`BENCH_ONLY=${CONF.only.source}: figures above; bench/results/latest.md left alone (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    return;
  }

  // ---- 7. plans of the read scenarios' main statements ----
  const plans = {};
  // As the search's word statement sets it for its own transaction (GroupSearchRepository.normalize), for the plans.
  await q.query('SET pg_trgm.word_similarity_threshold = 0.5');
  const readKeys = ['permMiss', 'groupsFirst', 'groupsDeep', 'membersFirst', 'membersDeep', 'friendsList', 'suggestions', 'suggestionsCold', 'relationship', 'auditFirst', 'auditDeep', 'notificationCounts', 'notificationsFirst', ...searchKeys];
  for (const k of readKeys) {
    if (!pageParams[k]) continue;
    try {
      const statement = searchKeys.includes(k) ? await searchStatement(ROOT, q, pageParams[k].gameId, pageParams[k].query) : await mainStatement(ROOT, k, pageParams[k]);
      plans[k] = await explain(q, statement);
    } catch (err) {
      plans[k] = { error: String(err.message ?? err) };
    }
  }

  // ---- 8. report ----
  let code = 'unknown (not a git checkout)';
  try {
    const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    code = `commit ${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no', '--', 'src', 'migrations') ? ' with uncommitted changes to src or migrations' : ''}`;
  } catch {
    // no git
  }
  const totalS = (performance.now() - t0) / 1000;
  const report = renderReport({
    startedAt,
    totalS,
    loadBefore,
    loadAfter: loadAverage(),
    machine: { cores: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', memoryGb: os.totalmem() / 2 ** 30 },
    node: process.version,
    code,
    postgres: { version: db.version, embedded: db.embedded, replica: REPLICA, superuser: db.superuser, postmasterPid: db.postmasterPid },
    conf: CONF,
    sizes,
    seeded,
    dbCeilings,
    pgbench,
    writeStatements,
    before: before?.label,
    results,
    plans,
    serverHwm,
  });
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, report);
  process.stdout.write(`${report}\n`);
  log(`wrote ${OUT} (${totalS.toFixed(0)} s in all)`);
}

let failed = false;
try {
  await main();
} catch (err) {
  failed = true;
  log(`failed: ${err?.stack ?? err}`);
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
