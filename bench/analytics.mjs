// Benchmark of the operator analytics and the memberCount-sorted admin group list (issue 7).
//
// How to run, from the project root (needs a Postgres whose user may CREATE DATABASE):
//   npm run build
//   node bench/analytics.mjs
// Environment:
//   BENCH_PG_URL   server URL (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_RUNS     timed runs per route after one warm-up (default 5)
//   KEEP_DB=1      keep the scratch database afterwards (its name is printed)
//   BENCH_DB=name  reuse a database kept by an earlier run: no seeding, not dropped
//
// It creates a scratch database, starts the built server on it as a child process (the server
// applies the migrations), seeds one game with set-based SQL (generate_series): 10 000 groups,
// 1 000 000 members whose joins and departures are spread over 90 days, 60 000 roles with their
// grants and assignments, 10 000 member overrides and 1 000 000 audit entries; then times every
// route over HTTP, prints the figures (median of the runs), checks each against the 1 s budget,
// prints the EXPLAIN ANALYZE plan of the slowest query, and drops the database.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const RUNS = Number(process.env.BENCH_RUNS || 5);
const BUDGET_MS = 1000;
const REUSE = process.env.BENCH_DB;
const DB = REUSE || `bench_analytics_${Date.now()}`;
const ADMIN = `jadm_${randomBytes(18).toString('hex')}`;

const GROUPS = 10_000;
const MEMBERS = 1_000_000;
const USERS = 250_000;
const AUDIT = 1_000_000;

const dbUrl = (name) => {
  const u = new URL(SERVER_URL);
  u.pathname = `/${name}`;
  return u.toString();
};
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(...a);

async function timed(label, fn) {
  const t = performance.now();
  await fn();
  log(`  ${label}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

/** Seeds one game; returns its id. Every statement is set-based. */
async function seed(pg, gameId) {
  log('seeding');
  await timed('groups', () =>
    pg.query(
      // 1 in 25 groups is a "raid" (400 of them): the memberCount sort is allowed on that filter.
      `INSERT INTO groups (id, game_id, kind, name, visibility, metadata, created_at, updated_at)
       SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, $1,
              CASE WHEN i % 25 = 0 THEN 'raid' ELSE 'guild' END,
              'Group ' || i,
              (ARRAY['public', 'invite-only', 'secret'])[1 + i % 3],
              jsonb_build_object('region', (ARRAY['eu', 'na', 'apac'])[1 + i % 3]),
              now() - interval '120 days' + (i * interval '120 days' / $2), now()
       FROM generate_series(0, $2 - 1) AS i`,
      [gameId, GROUPS],
    ),
  );
  await timed('users and identities', async () => {
    await pg.query(
      `INSERT INTO users (id) SELECT ('00000000-0000-7000-9000-' || lpad(to_hex(u), 12, '0'))::uuid FROM generate_series(0, $1 - 1) u`,
      [USERS],
    );
    await pg.query(
      `INSERT INTO user_identities (game_id, external_id, user_id)
       SELECT $1, 'player-' || u, ('00000000-0000-7000-9000-' || lpad(to_hex(u), 12, '0'))::uuid FROM generate_series(0, $2 - 1) u`,
      [gameId, USERS],
    );
  });
  await timed('members', async () => {
    // The counter trigger would update a groups row per member: off for the bulk load, then the
    // counters are set from one aggregate.
    await pg.query('ALTER TABLE members DISABLE TRIGGER members_active_count');
    // Group sizes are skewed (group i gets about 5000/sqrt(i) members). Joins spread over 90 days;
    // 30 % departed (left or kicked) after a tenure from seconds to months, never after now.
    await pg.query(
      `INSERT INTO members (id, group_id, user_id, external_user_id, status, joined_at, left_at)
       SELECT gen_random_uuid(),
              ('00000000-0000-7000-8000-' || lpad(to_hex(least(floor($1::int * (n::float8 / $2::int) ^ 2)::int, $1::int - 1)), 12, '0'))::uuid,
              ('00000000-0000-7000-9000-' || lpad(to_hex(n % $3::int), 12, '0'))::uuid,
              'player-' || (n % $3::int),
              CASE WHEN r.departed THEN (CASE WHEN n % 5 = 0 THEN 'kicked' ELSE 'left' END) ELSE 'active' END,
              r.joined_at,
              CASE WHEN r.departed THEN least(r.joined_at + interval '1 second' * (random() ^ 3 * 90 * 86400), now()) END
       FROM generate_series(0, $2::int - 1) AS n
       CROSS JOIN LATERAL (SELECT now() - random() * interval '90 days' AS joined_at, random() < 0.3 AS departed
                           OFFSET 0 * n) r`,
      [GROUPS, MEMBERS, USERS],
    );
    await pg.query(
      `UPDATE groups g SET active_member_count = c.n
       FROM (SELECT group_id, count(*) AS n FROM members WHERE status = 'active' GROUP BY 1) c WHERE c.group_id = g.id`,
    );
    await pg.query('ALTER TABLE members ENABLE TRIGGER members_active_count');
  });
  await timed('roles, grants, assignments, overrides', async () => {
    // Five common role names in every group and one of 40 custom names: more than 10 names overall.
    await pg.query(
      `INSERT INTO roles (id, group_id, name, priority, is_default)
       SELECT gen_random_uuid(), g.id, r.name, r.priority, r.priority = 0
       FROM groups g CROSS JOIN LATERAL (
         VALUES ('Leader', 100), ('Officer', 50), ('Veteran', 20), ('Member', 0), ('Recruit', -10),
                ('Custom ' || ((hashtext(g.id::text) & 2147483647) % 40), 10)) AS r(name, priority)
       WHERE g.game_id = $1`,
      [gameId],
    );
    await pg.query(
      `INSERT INTO role_permissions (role_id, permission)
       SELECT r.id, 'perm.' || k FROM roles r CROSS JOIN generate_series(0, 29) k
       WHERE ((hashtext(r.id::text) & 2147483647) + k) % 8 = 0`,
    );
    // Every member holds one role by a hash of its id; one in ten holds a second one.
    await pg.query(
      `INSERT INTO member_roles (member_id, role_id)
       SELECT m.id, r.id FROM members m
       JOIN roles r ON r.group_id = m.group_id
        AND r.name = (ARRAY['Leader', 'Officer', 'Veteran', 'Member', 'Member', 'Member', 'Recruit', 'Recruit'])[1 + (hashtext(m.id::text) & 2147483647) % 8]`,
    );
    await pg.query(
      `INSERT INTO member_roles (member_id, role_id)
       SELECT m.id, r.id FROM members m JOIN roles r ON r.group_id = m.group_id AND r.name LIKE 'Custom %'
       WHERE (hashtext(m.id::text) & 2147483647) % 10 = 0`,
    );
    await pg.query(
      `INSERT INTO member_permission_overrides (member_id, permission, allowed)
       SELECT id, 'perm.' || ((hashtext(id::text) & 2147483647) % 45), (hashtext(id::text) & 2147483647) % 3 > 0
       FROM members WHERE ((hashtext(id::text) & 2147483647) / 7) % 100 = 0`,
    );
  });
  await timed('audit entries', () =>
    // Spread over 90 days; one in a hundred is game-wide (no group).
    pg.query(
      `INSERT INTO journal (id, game_id, group_id, actor_user_id, action, target_id, payload, created_at, names)
       SELECT a.*, svc_journal_names(a.actor_user_id, a.target_id, a.payload, NULL) FROM (
       SELECT gen_random_uuid(), $1::uuid,
              CASE WHEN n % 100 = 0 THEN NULL
                   ELSE ('00000000-0000-7000-8000-' || lpad(to_hex((n::bigint * 7919) % $2::int), 12, '0'))::uuid END,
              CASE WHEN n % 3 = 0 THEN NULL ELSE ('00000000-0000-7000-9000-' || lpad(to_hex(n % $3::int), 12, '0'))::uuid END,
              (ARRAY['member.joined', 'member.left', 'member.kicked', 'member.updated', 'role.updated',
                     'permission.granted', 'group.updated', 'member.role.assigned'])[1 + n % 8],
              'player-' || ((n * 31) % $3::int),
              jsonb_build_object('n', n),
              now() - random() * interval '90 days'
       FROM generate_series(0, $4::int - 1) AS n
       ) a (id, game_id, group_id, actor_user_id, action, target_id, payload, created_at)`,
      [gameId, GROUPS, USERS, AUDIT],
    ),
  );
  await timed('vacuum analyze', () => pg.query('VACUUM ANALYZE'));
}

async function startServer(url, port) {
  const child = spawn(process.execPath, [join(ROOT, 'dist/src/main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      SVC_ADMIN_TOKEN: ADMIN,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/`)).ok) return { child, base };
    } catch {
      /* not listening yet */
    }
    await sleep(500);
  }
  child.kill('SIGTERM');
  throw new Error('server did not answer GET / within 60 s');
}

async function main() {
  const admin = new Client({ connectionString: SERVER_URL });
  await admin.connect();
  if (!REUSE) await admin.query(`CREATE DATABASE ${DB}`);
  log(`${REUSE ? 'reusing' : 'scratch'} database ${DB}`);
  let server;
  const pg = new Client({ connectionString: dbUrl(DB) });
  try {
    server = await startServer(dbUrl(DB), await freePort());
    const call = async (path, expected = 200) => {
      const r = await fetch(server.base + path, { headers: { authorization: `Bearer ${ADMIN}` } });
      const body = await r.json();
      if (r.status !== expected) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
      return body;
    };
    await pg.connect();
    let gameId;
    if (REUSE) {
      gameId = (await pg.query(`SELECT id FROM games WHERE name = 'bench'`)).rows[0].id;
      await pg.query('ANALYZE');
    } else {
      const gameRes = await fetch(`${server.base}/v1/admin/games`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bench' }),
      });
      gameId = (await gameRes.json()).id;
      await seed(pg, gameId);
    }

    const A = `/v1/admin/games/${gameId}`;
    const now = Date.now();
    const isoAgo = (days) => new Date(now - days * 86_400_000).toISOString();
    const routes = [
      ['group-churn (all groups)', `${A}/analytics/group-churn`],
      ['group-churn (groups of the last 30 days)', `${A}/analytics/group-churn?from=${isoAgo(30)}`],
      ['group-growth (default: 30 days, daily)', `${A}/analytics/group-growth`],
      ['group-growth (90 days, 3-day buckets, topN 10)', `${A}/analytics/group-growth?from=${isoAgo(90)}&to=${isoAgo(0)}&topN=10`],
      ['group-growth (1 day, hourly)', `${A}/analytics/group-growth?from=${isoAgo(1)}&to=${isoAgo(0)}`],
      ['group-growth (699 days, 100 weekly buckets)', `${A}/analytics/group-growth?from=${isoAgo(699)}&to=${isoAgo(0)}`],
      ['member-activity (all entries)', `${A}/analytics/member-activity`],
      ['member-activity (last 7 days)', `${A}/analytics/member-activity?from=${isoAgo(7)}`],
      ['role-distribution', `${A}/analytics/role-distribution`],
      ['permission-usage', `${A}/analytics/permission-usage`],
      ['admin groups sort=memberCount&kind=raid (400 groups)', `${A}/groups?sort=memberCount&kind=raid&limit=100`],
      ['admin groups sort=memberCount&kind=raid offset 300', `${A}/groups?sort=memberCount&kind=raid&limit=100&offset=300`],
      ['admin groups sort=memberCount&q=Group 99 (111 groups)', `${A}/groups?sort=memberCount&q=${encodeURIComponent('Group 99')}`],
      ['admin groups sort=memberCount, 10 000 groups (400)', `${A}/groups?sort=memberCount`, 400],
      ['admin groups default sort, 10 000 groups', `${A}/groups?limit=100`],
      ['admin game audit, first page', `${A}/audit`],
      ['admin game audit, actions=member.kicked', `${A}/audit?actions=member.kicked`],
      ['admin game audit, targetId=player-42', `${A}/audit?targetId=player-42`],
    ];
    log(`\ntimings over HTTP (median of ${RUNS} runs after a warm-up; min / max)`);
    const results = [];
    for (const [label, path, expected = 200] of routes) {
      await call(path, expected);
      const times = [];
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        await call(path, expected);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)];
      results.push({ label, median });
      const verdict = median < BUDGET_MS ? 'ok' : 'OVER BUDGET';
      log(`  ${label.padEnd(58)} ${median.toFixed(1).padStart(8)} ms  (${times[0].toFixed(1)} / ${times[times.length - 1].toFixed(1)})  ${verdict}`);
    }

    // The plan of the slowest analytics query: the repository's own SQL, run through EXPLAIN.
    const analytics = results.filter((r) => !r.label.startsWith('admin'));
    const slowest = analytics.reduce((a, b) => (b.median > a.median ? b : a));
    log(`\nslowest analytics route: ${slowest.label} (${slowest.median.toFixed(1)} ms); its plan:`);
    const { AnalyticsRepository } = require(join(ROOT, 'dist/src/analytics/analytics.repository.js'));
    const { growthWindow } = require(join(ROOT, 'dist/src/analytics/analytics-window.js'));
    let plan = '';
    const explaining = {
      query: async (sql, params) => {
        const r = await pg.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
        plan = r.rows.map((x) => x['QUERY PLAN']).join('\n');
        return [{ bins: [], data: [], cells: [], topRoles: [], items: [] }];
      },
    };
    // The settings AnalyticsRepository.session gives every analytics query.
    await pg.query(`SET jit = off; SET work_mem = '64MB'`);
    const repo = new AnalyticsRepository();
    const byLabel = {
      'group-churn': () => repo.churn(explaining, gameId, slowest.label.includes('30') ? { from: new Date(isoAgo(30)) } : {}),
      'group-growth': () => {
        const days = slowest.label.includes('699') ? 699 : slowest.label.includes('90') ? 90 : slowest.label.includes('1 day') ? 1 : 30;
        return repo.growth(explaining, gameId, growthWindow(new Date(isoAgo(days)), new Date(now)), slowest.label.includes('topN 10') ? 10 : 5);
      },
      'member-activity': () => repo.activity(explaining, gameId, slowest.label.includes('7') ? { from: new Date(isoAgo(7)) } : {}),
      'role-distribution': () => repo.roleDistribution(explaining, gameId),
      'permission-usage': () => repo.permissionUsage(explaining, gameId),
    };
    await byLabel[slowest.label.split(' ')[0]]();
    log(plan);
    const over = results.filter((r) => r.median >= BUDGET_MS);
    log(over.length ? `\n${over.length} route(s) over the ${BUDGET_MS} ms budget` : `\nevery route under ${BUDGET_MS} ms`);
    process.exitCode = over.length ? 1 : 0;
  } finally {
    if (server) {
      server.child.kill('SIGTERM');
      await new Promise((r) => (server.child.exitCode !== null ? r() : server.child.once('exit', r)));
    }
    await pg.end().catch(() => undefined);
    if (!process.env.KEEP_DB && !REUSE) await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    else log(`kept ${DB}`);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
