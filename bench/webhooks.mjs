// Benchmark: webhook deliveries per second to a local receiver (SPEC §6 "Webhook delivery").
//
// How to run, from the project root (needs a Postgres whose user may CREATE DATABASE):
//   npm run build
//   node bench/webhooks.mjs
// Environment:
//   DATABASE_URL       any database URL of the Postgres server to use; a scratch database is
//                      created there and dropped at the end (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_DELIVERIES   deliveries per scenario (default 20000)
//   BENCH_LATENCIES    receiver latencies to run, in ms, comma-separated (default "0,50")
//   BENCH_ENDPOINTS    endpoints the deliveries of a scenario are spread over (default 1)
//   BENCH_TIMEOUT_S    give up on a scenario after this many seconds (default 300)
//
// What it does: creates the scratch database, starts the BUILT server (dist/src/main.js) on it as
// a child process with its delivery worker on (the server applies the migrations), creates a game
// and a public group through the API, causes one real `member.joined` (its outbox body is the
// template of the synthetic events), then for each receiver latency:
//   - creates the endpoint(s) through the API, pointing at a local node:http receiver that answers
//     200 after the latency;
//   - ENQUEUES DIRECTLY WITH SQL, for speed: one INSERT statement writes BENCH_DELIVERIES
//     outbox_events rows and one pending webhook_deliveries row each (exactly the rows the unit of
//     work writes for a committed event), so all become due at one commit;
//   - polls webhook_deliveries until none is pending, and /healthz every second meanwhile.
// Deliveries/s = deliveries / (last completed_at - commit). The worker's claims are reconstructed
// from the rows: every row claimed by one claim statement shares its last_attempt_at (the claiming
// transaction's now()), which gives the batch sizes and the cycle time per batch.
// At the end it stops the server (SIGTERM), closes the receiver, drops the database and prints
// Markdown tables. Target: >= 500 deliveries/s.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { createServer as createNetServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MAIN_JS = join(ROOT, 'dist/src/main.js');
const SERVER_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const DELIVERIES = Number(process.env.BENCH_DELIVERIES || 20_000);
const LATENCIES = (process.env.BENCH_LATENCIES || '0,50').split(',').map((s) => Number(s.trim()));
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS || 1);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S || 300) * 1000;
const TARGET_PER_S = 500;
const ADMIN = `jadm_${randomBytes(18).toString('hex')}`;
const DB_NAME = `bench_webhooks_${process.pid}_${randomBytes(3).toString('hex')}`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error(...a); // progress on stderr; the tables on stdout
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
const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

/** CPU seconds (user + system) of a process, from /proc/<pid>/stat. */
function cpuSeconds(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // clock ticks, USER_HZ = 100 on Linux
  } catch {
    return NaN;
  }
}

// ---- what this script starts, so that it can always be stopped ----
let serverChild = null;
let receiver = null;
let pg = null;
let dbCreated = false;

async function cleanup() {
  if (serverChild && serverChild.exitCode === null && serverChild.signalCode === null) {
    const exited = new Promise((r) => serverChild.once('exit', r));
    serverChild.kill('SIGTERM');
    const t = setTimeout(() => serverChild.kill('SIGKILL'), 35_000);
    await exited;
    clearTimeout(t);
  }
  if (receiver) {
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(() => r()));
  }
  if (pg) await pg.end().catch(() => undefined);
  if (dbCreated) {
    const admin = new Client({ connectionString: SERVER_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await admin.end();
    log(`dropped ${DB_NAME}`);
  }
}

async function api(base, method, path, body, token) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
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
      WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
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

/** The receiver: answers 200 after `latencyMs`; counts requests. */
async function startReceiver() {
  const state = { latencyMs: 0, requests: 0, inFlight: 0, maxInFlight: 0 };
  receiver = createServer((req, res) => {
    state.requests++;
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    req.resume();
    req.on('end', () => {
      const answer = () => {
        state.inFlight--;
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      };
      if (state.latencyMs > 0) setTimeout(answer, state.latencyMs);
      else answer();
    });
  });
  receiver.keepAliveTimeout = 60_000;
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  return { state, url: `http://127.0.0.1:${receiver.address().port}/hook` };
}

async function runScenario(ctx, latencyMs, index) {
  const { base, key, gameId, groupId, template, rx } = ctx;
  rx.state.latencyMs = latencyMs;
  rx.state.requests = 0;
  rx.state.maxInFlight = 0;
  const endpoints = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    endpoints.push((await api(base, 'POST', '/v1/webhooks', { url: rx.url, events: ['member.joined'] }, key)).id);
  }
  log(`scenario ${index}: ${DELIVERIES} deliveries to ${ENDPOINTS} endpoint(s), receiver latency ${latencyMs} ms`);

  // One statement, one commit: DELIVERIES events in the outbox and one pending delivery each.
  const prefix = `${index.toString(16).padStart(2, '0')}${randomBytes(3).toString('hex')}`;
  const t0 = Date.now();
  await pg.query(
    `WITH ev AS (
       SELECT i, $1 || lpad(to_hex(i), 16, '0') AS id FROM generate_series(0, $2 - 1) AS i
     ), outbox AS (
       INSERT INTO outbox_events (id, game_id, group_id, type, body)
       SELECT ev.id, $3, $4, 'member.joined',
              $5::jsonb || jsonb_build_object('id', ev.id, 'occurredAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                          'member', ($5::jsonb -> 'member') || jsonb_build_object('userId', 'bench-' || ev.i))
       FROM ev
     )
     INSERT INTO webhook_deliveries (id, endpoint_id, event_id)
     SELECT svc_uuidv7(), ($6::uuid[])[1 + ev.i % cardinality($6::uuid[])], ev.id FROM ev`,
    [prefix, DELIVERIES, gameId, groupId, JSON.stringify(template), endpoints],
  );
  const committedAt = Date.now();
  log(`  enqueued in ${committedAt - t0} ms`);

  // Wait until none is pending; sample /healthz and the server's CPU meanwhile.
  const health = { checks: 0, degraded: 0, maxAgeMs: 0, reasons: new Set() };
  let polling = true;
  const healthLoop = (async () => {
    while (polling) {
      try {
        const r = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(3000) });
        const b = await r.json();
        health.checks++;
        if (r.status !== 200) {
          health.degraded++;
          const w = b.webhookWorker ?? {};
          if (w.reason) health.reasons.add(String(w.reason).replace(/\d+ ms/, 'N ms'));
          health.maxAgeMs = Math.max(health.maxAgeMs, w.ageMs ?? 0);
        }
      } catch {
        health.degraded++;
      }
      await sleep(1000);
    }
  })();
  const cpu0 = cpuSeconds(ctx.pid);
  let pending = DELIVERIES;
  let lastLog = 0;
  while (pending > 0) {
    if (Date.now() - committedAt > TIMEOUT_MS) break;
    await sleep(250);
    const [row] = (
      await pg.query(`SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending FROM webhook_deliveries WHERE endpoint_id = ANY ($1::uuid[])`, [
        endpoints,
      ])
    ).rows;
    pending = row.pending;
    if (Date.now() - lastLog > 5000) {
      lastLog = Date.now();
      log(`  ${DELIVERIES - pending} / ${DELIVERIES} done after ${((Date.now() - committedAt) / 1000).toFixed(1)} s`);
    }
  }
  const wallS = (Date.now() - committedAt) / 1000;
  const cpuUsed = cpuSeconds(ctx.pid) - cpu0;
  polling = false;
  await healthLoop;

  const [s] = (
    await pg.query(
      `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
              count(*) FILTER (WHERE status <> 'delivered')::int AS other,
              max(attempts)::int AS "maxAttempts",
              extract(epoch FROM min(last_attempt_at))::float8 * 1000 AS "firstClaim",
              extract(epoch FROM max(completed_at))::float8 * 1000 AS "lastDone"
       FROM webhook_deliveries WHERE endpoint_id = ANY ($1::uuid[])`,
      [endpoints],
    )
  ).rows;
  // Claims: rows sharing last_attempt_at were claimed by one statement (one batch).
  const claims = (
    await pg.query(
      `SELECT extract(epoch FROM last_attempt_at)::float8 * 1000 AS at, count(*)::int AS n,
              extract(epoch FROM max(completed_at) - last_attempt_at)::float8 * 1000 AS "sendAndMarkMs"
       FROM webhook_deliveries WHERE endpoint_id = ANY ($1::uuid[]) AND last_attempt_at IS NOT NULL
       GROUP BY last_attempt_at ORDER BY last_attempt_at`,
      [endpoints],
    )
  ).rows;
  const cycles = claims.slice(1).map((c, i) => c.at - claims[i].at).sort((a, b) => a - b);
  const sendMark = claims.map((c) => c.sendAndMarkMs).sort((a, b) => a - b);
  const sizes = claims.map((c) => c.n);
  const overallS = (s.lastDone - committedAt) / 1000;
  const steadyS = (s.lastDone - s.firstClaim) / 1000;

  // Disable these endpoints so the next scenario measures its own rows only.
  for (const id of endpoints) await api(base, 'PATCH', `/v1/webhooks/${id}`, { disabled: true }, key);

  return {
    latencyMs,
    delivered: s.delivered,
    notDelivered: s.other,
    maxAttempts: s.maxAttempts,
    pickupMs: s.firstClaim - committedAt,
    overallS,
    perS: s.delivered / overallS,
    steadyPerS: s.delivered / steadyS,
    wallS,
    claims: claims.length,
    fullClaims: sizes.filter((n) => n === 50).length,
    cycleP50: pct(cycles, 50),
    cycleP99: pct(cycles, 99),
    sendMarkP50: pct(sendMark, 50),
    cpuPct: (cpuUsed / steadyS) * 100,
    maxInFlight: rx.state.maxInFlight,
    requests: rx.state.requests,
    health,
  };
}

async function main() {
  log(`creating ${DB_NAME} on ${new URL(SERVER_URL).host}`);
  const admin = new Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  dbCreated = true;
  const version = (await admin.query('SHOW server_version')).rows[0].server_version;
  await admin.end();

  const rx = await startReceiver();
  const server = await startServer(dbUrl(DB_NAME));
  log(`server pid ${server.pid} on ${server.base}`);
  pg = new Client({ connectionString: dbUrl(DB_NAME) });
  await pg.connect();

  const game = await api(server.base, 'POST', '/v1/admin/games', { name: 'webhook bench' }, ADMIN);
  const { key } = await api(server.base, 'POST', `/v1/admin/games/${game.id}/api-keys`, undefined, ADMIN);
  const group = await api(server.base, 'POST', '/v1/groups', { kind: 'guild', name: 'Bench', visibility: 'public' }, key);
  await api(server.base, 'POST', `/v1/groups/${group.id}/join`, { userId: 'template-user' }, key);
  const [{ body: template }] = (await pg.query(`SELECT body FROM outbox_events WHERE type = 'member.joined' LIMIT 1`)).rows;

  const ctx = { base: server.base, pid: server.pid, key, gameId: game.id, groupId: group.id, template, rx };
  const results = [];
  for (const [i, latency] of LATENCIES.entries()) results.push(await runScenario(ctx, latency, i + 1));

  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const out = [];
  out.push(`### Webhook delivery throughput (${DELIVERIES} deliveries per run, ${ENDPOINTS} endpoint(s), one server process)`);
  out.push('');
  out.push(`PostgreSQL ${version}, Node ${process.version}, ${require('node:os').cpus().length} CPUs, load average after the runs ${load}. Rows enqueued with one SQL INSERT (outbox_events + webhook_deliveries), i.e. all due at one commit.`);
  out.push('');
  out.push('| receiver latency | delivered | deliveries/s (commit → last delivered) | deliveries/s (first claim → last delivered) | target ≥ 500/s | pick-up after commit | total time | server CPU | max requests in flight | /healthz degraded |');
  out.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    out.push(
      `| ${r.latencyMs} ms | ${r.delivered}/${DELIVERIES}${r.notDelivered ? ` (${r.notDelivered} not)` : ''} | ${fmt(r.perS)} | ${fmt(r.steadyPerS)} | ${r.perS >= TARGET_PER_S ? 'met' : 'MISSED'} | ${fmt(r.pickupMs)} ms | ${fmt(r.overallS, 1)} s | ${fmt(r.cpuPct)} % | ${r.maxInFlight} | ${r.health.degraded}/${r.health.checks}${r.health.maxAgeMs ? ` (ageMs up to ${r.health.maxAgeMs})` : ''} |`,
    );
  }
  out.push('');
  out.push('Worker batches, reconstructed from the rows (one claim statement = one `last_attempt_at`):');
  out.push('');
  out.push('| receiver latency | claims | full (50) | claim-to-claim cycle p50 / p99 | claim → last row of the batch recorded, p50 | ceiling at 50 per cycle (p50) |');
  out.push('|---|---|---|---|---|---|');
  for (const r of results) {
    out.push(
      `| ${r.latencyMs} ms | ${r.claims} | ${r.fullClaims} | ${fmt(r.cycleP50, 1)} / ${fmt(r.cycleP99, 1)} ms | ${fmt(r.sendMarkP50, 1)} ms | ${fmt(50_000 / r.cycleP50)}/s |`,
    );
  }
  for (const r of results) {
    if (r.health.reasons.size) out.push('', `/healthz reasons seen at ${r.latencyMs} ms: ${[...r.health.reasons].join('; ')}`);
  }
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
