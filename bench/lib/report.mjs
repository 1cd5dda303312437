import { PGBENCH } from './pgbench.mjs';
import { NAME_MATCH_BATCHES, NAME_MATCH_TARGET_MS } from './name-match.mjs';

const BATCHES_NOTE = `timed in ${NAME_MATCH_BATCHES.count} batches of ${NAME_MATCH_BATCHES.size} checks after a warm-up (p50 and p99 over the batches' means)`;

// bench/results/latest.md: the run's context, one table with every scenario, its ratio to the
// relevant ceiling and the issue's target beside it, then the evidence behind the figures.

const int = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const ms = (n) => (Number.isFinite(n) ? (n >= 100 ? Math.round(n).toString() : n.toFixed(n < 1 ? 2 : 1)) : 'n/a');
const pct = (n) => (Number.isFinite(n) ? `${Math.round(n)}` : '—');
const cpu = (c) => (c ? `${pct(c.server)} / ${pct(c.postgres)} / ${pct(c.client)}` : '—');
const verdict = (ok) => (ok === null ? '—' : ok ? 'met' : '**missed**');
/** CPU time per request, in ms: CPU % of one core over the run / requests per second. */
const cpuMs = (p, rps) => (Number.isFinite(p) && rps > 0 ? ((p / 100 / rps) * 1000).toFixed((p / 100 / rps) * 1000 >= 0.1 ? 2 : 3) : '—');
const perReq = (c, rps, xacts) =>
  c ? `${cpuMs(c.server, rps)} / ${cpuMs(c.postgres, rps)} / ${Number.isFinite(xacts) ? `≈${xacts.toFixed(1)}` : '—'}` : '—';
const short = (sql) => (sql.length > 130 ? `${sql.slice(0, 80)} … ${sql.slice(-45)}` : sql);

const READ_P99_MS = 50;

/**
 * A row read from the standby when the second server's requests committed there at least this share
 * of the transactions the first server's committed on the primary (the counters lag by up to a second).
 */
const ON_STANDBY_MIN_SHARE = 0.8;

/**
 * BENCH_BEFORE: "Rows before and after", as markdown lines, from `runs` (run.mjs's
 * results.beforeAfter: per row measured in pairs, its runs on this build's server and on the earlier commit's,
 * in rounds that alternate which went first). Each build's figures pool its runs: requests, CPU,
 * WAL and buffers summed over them, p99 their mean. The bench prints it too when BENCH_ONLY leaves
 * the report alone.
 */
export function renderBeforeAfter(runs, label) {
  const sum = (xs, f) => xs.reduce((t, x) => t + f(x), 0);
  const pooled = (xs) => {
    const requests = sum(xs, (x) => x.requests);
    const cpuMsPer = (field) => (sum(xs, (x) => ((x.cpu[field] / 100) * x.requests) / x.rps) / requests) * 1000;
    const updates = sum(xs, (x) => x.counters?.deliveryUpdates ?? 0);
    return {
      rps: sum(xs, (x) => x.rps) / xs.length,
      p99: sum(xs, (x) => x.p99) / xs.length,
      serverMs: cpuMsPer('server'),
      pgMs: cpuMsPer('postgres'),
      wal: xs.every((x) => x.counters) ? sum(xs, (x) => x.counters.wal) / requests : NaN,
      buffers: xs.every((x) => x.statements) ? sum(xs, (x) => x.statements.buffersPerRequest * x.requests) / requests : NaN,
      hot: updates ? `${Math.round((100 * sum(xs, (x) => x.counters?.deliveryHotUpdates ?? 0)) / updates)} %` : '—',
    };
  };
  const ratio = (a, b) => (Number.isFinite(a / b) ? (a / b).toFixed(2) : '—');
  const out = [
    `## Rows before and after (BENCH_BEFORE=${label})`,
    '',
    `Each write row, each read row and the feed page on this build's server and on a server of ${label} beside it, same database, dataset and settings, in rounds that alternate which goes first, each run started with autovacuum idle and right after a checkpoint; ` +
      "each build's figures pool its runs (req/s and p99 their means; CPU from the processes' CPU time, WAL from pg_stat_wal (the whole cluster) and buffers from pg_stat_statements, per request over all its runs). " +
      'The last column gives this build ÷ before for req/s, PostgreSQL CPU a request and WAL a request, then req/s round by round.',
    '',
    '| Row | Build | Req/s | p99 (ms) | Server / PostgreSQL CPU a request (ms) | WAL bytes a request | Buffers a request | Delivery updates HOT | This build ÷ before |',
    '|---|---|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const row of Object.values(runs)) {
    const [now, then] = [pooled(row.this), pooled(row.before)];
    const rounds = row.this.map((x, i) => ratio(x.rps, row.before[i].rps)).join(' / ');
    for (const [build, f] of [['this build', now], [label, then]]) {
      const change = f === now ? `${ratio(now.rps, then.rps)}, ${ratio(now.pgMs, then.pgMs)}, ${ratio(now.wal, then.wal)}; rounds ${rounds}` : '';
      out.push(
        `| ${f === now ? row.name : ''} | ${build} | ${int(f.rps)} | ${ms(f.p99)} | ${f.serverMs.toFixed(2)} / ${f.pgMs.toFixed(2)} | ${int(f.wal)} | ${int(f.buffers)} | ${f.hot} | ${change} |`,
      );
    }
  }
  out.push('');
  return out;
}

/**
 * BENCH_REPLICA=1: "Reads with and without a replica (same run)", as markdown lines (the bench
 * prints them too when BENCH_ONLY leaves the report alone). `x` is replica-reads.mjs's finish().
 */
export function renderReplicaTable(x) {
  const rows = Object.entries(x.rows);
  const cpu3 = (c) => `${pct(c.server)} / ${pct(c.postgres)} / ${pct(c.standby)}`;
  const lag = (l) => `${int(l.maxBytes)} B; ${l.maxLagMs === null ? 'none' : `${ms(l.maxLagMs)} ms`}`;
  const off = rows.filter(([, f]) => !(f.with.standbyXactsPerRequest >= ON_STANDBY_MIN_SHARE * f.without.xactsPerRequest)).map(([k]) => k);
  const perRequest = (res) => `${cpuMs(res.cpu.server, res.rps)} / ${cpuMs(res.cpu.postgres + (res.cpu.standby ?? 0), res.rps)}`;
  const xacts = (res) => `${res.xactsPerRequest.toFixed(1)} / ${res.standbyXactsPerRequest.toFixed(1)}`;
  const out = [
    '## Reads with and without a replica (same run)',
    '',
    `Each read row twice, one right after the other: on the server without \`DATABASE_READ_URL\` (its replica routes read the primary), then on a second server, same environment, whose \`DATABASE_READ_URL\` is a streaming hot standby of the primary (PostgreSQL ${x.version}, \`pg_basebackup -R -X stream\` once the rows were set up: ${x.takenS.toFixed(0)} s to take and catch up; \`hot_standby_feedback = on\`). Both clusters and both servers share the machine's cores with the load generator, so the standby's CPU comes out of the same budget as the primary's. CPU in % of one core over the measured run, and per request (the CPU time over the requests answered: steadier than req/s when other work shares the machine). Transactions a request: what each cluster's \`pg_stat_database\` counted for the bench database over the measured run, divided by the requests; backends publish their counts up to a second late (up to 10 s once idle), so a run also counts some of the run before it, on the cluster that run used (typically 0.1 a request; more when this run answers far fewer requests than that one). "Behind": the most WAL the standby had not replayed, and pg_stat_replication's largest \`replay_lag\` ("none": caught up and idle), sampled every 250 ms during the row.`,
    '',
    '| Row | Without: req/s | p50 (ms) | p99 (ms) | With: req/s | p50 (ms) | p99 (ms) | Req/s with ÷ without | Errors without / with | CPU % without: server / primary / standby | CPU % with: server / primary / standby | CPU ms a request, server / both clusters: without; with | Transactions a request, primary / standby: without; with | Standby behind at most |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const [, f] of rows) {
    const [a, b] = [f.without, f.with];
    out.push(
      `| ${f.name} | ${int(a.rps)} | ${ms(a.p50)} | ${ms(a.p99)} | ${int(b.rps)} | ${ms(b.p50)} | ${ms(b.p99)} | ${(b.rps / a.rps).toFixed(2)} | ${int(a.errors)} / ${int(b.errors)} | ${cpu3(a.cpu)} | ${cpu3(b.cpu)} | ${perRequest(a)}; ${perRequest(b)} | ${xacts(a)}; ${xacts(b)} | ${lag(f.lag)} |`,
    );
  }
  out.push(
    '',
    off.length
      ? `**Not read from the standby**: ${off.join(', ')} (with the replica, fewer transactions a request on the standby than ${ON_STANDBY_MIN_SHARE} × those on the primary without it).`
      : `Every row read from the standby: with the replica, each committed at least ${ON_STANDBY_MIN_SHARE} × as many transactions a request on the standby as without it on the primary.`,
  );
  return out;
}

export function renderReport(ctx) {
  const { results: r, dbCeilings, conf, sizes, seeded, plans } = ctx;
  // The mean of the framework ceiling's two runs, before the scenarios and right after the check.
  const frameworkRuns = [r.frameworkCeiling, r.frameworkCeilingAgain].filter(Boolean);
  const framework = frameworkRuns.reduce((sum, x) => sum + x.rps, 0) / frameworkRuns.length;
  const http = r.httpCeiling.rps;
  const rows = [];
  const httpRow = (res, { ratio, target, ok }) =>
    rows.push([res.name, int(res.rps), ms(res.p50), ms(res.p99), ms(res.aloneP50), int(res.errors), int(res.rss), cpu(res.cpu), perReq(res.cpu, res.rps, res.xactsPerRequest), ratio, target, verdict(ok)]);
  const vsFramework = (res) => `${(res.rps / framework).toFixed(2)} × framework`;
  // A read row's database ceiling, pgbench -f running its statements (bench/lib/sql-ceiling.mjs),
  // as a row of its own above it; the read then needs ≥ 0.5 × its req/s.
  const SQL_ALONE_SHARE = 0.5;
  const sqlAloneRow = (c, what) =>
    rows.push([
      `Its SQL alone: pgbench -f -M ${c.mode}, ${what}, same weights, ${c.connections ?? conf.connections} clients (req/s = requests' statement sets/s)`,
      int(c.tps), ms(c.p50), ms(c.p99), '—', int(c.failed), '—', `— / ${pct(c.cpu?.postgres)} / —`, `— / ${cpuMs(c.cpu?.postgres, c.tps)} / —`,
      '1.00 × its SQL (the ceiling of the row below)', '—', '—',
    ]);
  const read = (k, first, minRps, p99 = READ_P99_MS) => {
    const res = r[k];
    if (!res) return;
    const c = res.ceiling;
    if (c) sqlAloneRow(c, `the statements ${int(c.requests)} of the row's requests sent (${c.statementsPerRequest.toFixed(1)} a request; ${c.scripts} distinct sets, captured from a server's connections)`);
    const vsSql = c ? res.rps / c.tps : NaN;
    // A row answered from memory (most of its requests sent no statement) has no database ceiling to be held to.
    const fromMemory = res.fromMemory || (c && c.statementsPerRequest < 0.5);
    const judged = c && !fromMemory;
    let ok = p99 === null ? null : res.p99 <= p99 && res.errors === 0 && (!judged || vsSql >= SQL_ALONE_SHARE);
    let target = p99 === null ? '— (no target)' : `p99 ≤ ${p99} ms${fromMemory ? ' (answered from memory: no SQL alone to hold it to)' : `; ≥ ${SQL_ALONE_SHARE.toFixed(2)} × its SQL alone`}`;
    if (minRps) {
      ok &&= res.rps >= minRps;
      target = `≥ ${int(minRps)} req/s, ${target}`;
    }
    if (first) {
      const share = res.rps / r[first].rps;
      ok &&= share >= 0.8;
      target += `; as fast as the first page (≥ 80 % of its req/s: ${Math.round(share * 100)} %)`;
    }
    httpRow(res, { ratio: c ? `${vsSql.toFixed(2)} × its SQL alone; ${vsFramework(res)}` : vsFramework(res), target, ok });
  };

  httpRow(r.httpCeiling, { ratio: '1.00 × HTTP (the HTTP ceiling)', target: '—', ok: null });
  for (const run of frameworkRuns) httpRow(run, { ratio: `${(run.rps / http).toFixed(2)} × HTTP`, target: '—', ok: null });
  const pgb = ctx.pgbench;
  if (pgb) {
    rows.push([
      `PostgreSQL ceiling: pgbench TPC-B-like (5 statements a transaction), ${PGBENCH.clients} clients, ${PGBENCH.durationS} s, scale ${PGBENCH.scale}, scratch database (req/s = transactions/s)`,
      int(pgb.tps),
      '—',
      '—',
      `avg ${ms(pgb.latencyMs)}`,
      int(pgb.failed),
      '—',
      `— / ${pct(pgb.cpu?.postgres)} / —`,
      `— / ${cpuMs(pgb.cpu?.postgres, pgb.tps)} / 1`,
      '1.00 × pgbench (the write ceiling)',
      '—',
      '—',
    ]);
  }
  const vsPgbench = (rps) => (pgb ? `${(rps / pgb.tps).toFixed(2)} × pgbench` : 'n/a (pgbench not on the PATH)');
  const ceilingRow = (label, c) => [
    label,
    int(c.rps),
    ms(c.p50),
    ms(c.p99),
    '—',
    int(c.errors),
    '—',
    `— / ${pct(c.cpu?.postgres)} / ${pct(c.cpu?.client)}`,
    `— / ${cpuMs(c.cpu?.postgres, c.rps)} / —`,
    vsPgbench(c.rps),
    '—',
    '—',
  ];
  for (const c of dbCeilings) {
    rows.push(ceilingRow(`Our SQL alone: the join's and the leave's statements on raw pg, ${c.connections} clients, no HTTP (req/s = transactions/s)`, c));
    if (c.before) rows.push(ceilingRow(`The same, ${c.before.label} (BENCH_BEFORE), best of its rounds`, c.before));
  }
  // The write targets: a share of pgbench's transactions/s (none can be judged without it).
  const write = (k, share, { p99, perJoin } = {}) => {
    const res = r[k];
    if (!res) return;
    const serverMs = (res.cpu.server / 100 / res.rps) * 1000;
    const pgMs = (res.cpu.postgres / 100 / res.rps) * 1000;
    const parts = [`≥ ${share.toFixed(2)} × pgbench`];
    let ok = pgb ? res.rps / pgb.tps >= share && res.errors === 0 : null;
    if (p99 !== undefined) {
      parts.push(`p99 ≤ ${p99} ms`);
      if (ok !== null) ok &&= res.p99 <= p99;
    }
    if (perJoin) {
      parts.push('server CPU ≤ 0.6 ms and PG CPU ≤ 1.5 ms a request');
      if (ok !== null) ok &&= serverMs <= 0.6 && pgMs <= 1.5;
    }
    httpRow(res, { ratio: vsPgbench(res.rps), target: parts.join('; '), ok });
  };
  write('joinLeave', 0.5, { p99: 100, perJoin: true });
  write('joinLeaveHot', 0.3, { p99: 100, perJoin: true });
  write('groupCreate', 0.4);
  // EXTENSIONS X10: what checking a name against a policy of 1,000 words costs a group create, same run.
  if (r.groupCreatePolicy) {
    const res = r.groupCreatePolicy;
    const twin = r.groupCreate;
    const share = twin ? res.rps / twin.rps : NaN;
    httpRow(res, {
      ratio: twin ? `${share.toFixed(2)} × the same create without a policy; ${vsPgbench(res.rps)}` : vsPgbench(res.rps),
      target: '≥ 0.95 × the same group create in a game without a name policy',
      ok: twin ? share >= 0.95 && res.errors === 0 : null,
    });
  }
  for (const k of ['inviteAccept', 'inviteAcceptHot', 'banUnban', 'banUnbanHot', 'roleAssign', 'roleAssignHot', 'overrideSet', 'overrideSetHot', 'friendRequest', 'inviteNotifyNobody']) write(k, 0.4);
  // EXTENSIONS X9: what writing a notification costs, the same invitation with and without one, same run.
  if (r.inviteNotify) {
    const res = r.inviteNotify;
    const twin = r.inviteNotifyNobody;
    const rounds = res.rounds ? [...res.rounds].sort((a, b) => a - b) : null;
    const share = rounds ? rounds[Math.floor(rounds.length / 2)] : twin ? res.rps / twin.rps : NaN;
    const of = rounds ? ` (median of ${rounds.length} rounds' ratios: ${res.rounds.map((x) => x.toFixed(2)).join(', ')})` : '';
    httpRow(res, {
      ratio: twin ? `${share.toFixed(2)} × the same invitation notifying nobody${of}; ${vsPgbench(res.rps)}` : vsPgbench(res.rps),
      target: '≥ 0.90 × the same invitation notifying nobody (the notification costs ≤ 10 % of its throughput)',
      ok: twin ? share >= 0.9 && res.errors === 0 : null,
    });
  }
  const hit = r.permHit;
  httpRow(hit, {
    ratio: vsFramework(hit),
    target: `≥ 0.90 × framework, p99 ≤ 10 ms`,
    ok: hit.rps / framework >= 0.9 && hit.p99 <= 10 && hit.errors === 0,
  });
  read('permMiss');
  // EXTENSIONS X8: a batch of 100 checks within 25 ms, each list within the reads' 50 ms.
  read('permBatch', undefined, undefined, 25);
  // No target: kept in sight, the cost of a batch none of whose profiles is cached.
  read('permBatchCold', undefined, undefined, null);
  read('permEffective');
  read('permGroups');
  read('permMembers');
  const jl = r.joinLeave;
  read('groupsFirst');
  read('groupsDeep', 'groupsFirst');
  read('membersFirst');
  read('membersDeep', 'membersFirst');
  read('friendsList');
  read('suggestions', undefined, 1000);
  read('suggestionsCold', undefined, 1000);
  read('relationship');
  read('auditFirst');
  read('auditDeep', 'auditFirst');
  // EXTENSIONS X9: a badge within 20 ms, an inbox's first page within the reads' 50 ms.
  read('notificationCounts', undefined, undefined, 20);
  read('notificationsFirst');
  // Group search: each row beside its database ceiling, pgbench -f running the statements the
  // service sends for the same queries on the same connections (bench/lib/search.mjs): as many as a
  // game's expensive reads run at once on an instance, where more would be answered 429.
  for (const k of ['searchText', 'searchTags', 'searchText1M', 'searchTags1M']) {
    const res = r[k];
    if (!res) continue;
    const c = res.ceiling;
    if (c) sqlAloneRow(c, `the statements the service sends for those ${c.statements} queries`);
    const ratio = c ? res.rps / c.tps : NaN;
    httpRow(res, {
      ratio: c ? `${ratio.toFixed(2)} × its SQL alone` : vsFramework(res),
      target: `p99 ≤ ${READ_P99_MS} ms; ≥ ${SQL_ALONE_SHARE.toFixed(2)} × its SQL alone`,
      ok: res.p99 <= READ_P99_MS && res.errors === 0 && (!c || ratio >= SQL_ALONE_SHARE),
    });
  }
  const s = r.stream;
  rows.push([
    `Live stream: ${conf.subscribers} subscribers on one group, ${conf.streamJoins} joins ${conf.streamIntervalMs} ms apart; latency = commit to receipt`,
    `${s.joinsPerS.toFixed(0)} events/s → ${int(s.joinsPerS * conf.subscribers)} frames/s`,
    ms(s.p50),
    ms(s.p99),
    '—',
    int(s.expected - s.receipts + s.duplicates + s.failedJoins),
    `${int(s.rssAfter)} (peak ${int(s.rssPeak)})`,
    `${pct(s.serverCpu)} / — / —`,
    '—',
    '—',
    'p99 ≤ 100 ms, RSS < 400 MB',
    verdict(s.p99 <= 100 && s.rssPeak < 400 && s.receipts === s.expected),
  ]);
  if (r.feedPage) {
    const f = r.feedPage;
    httpRow({ ...f, name: `${f.name}; ${int(f.rps * 1000)} events/s` }, { ratio: '—', target: `p99 ≤ ${READ_P99_MS} ms`, ok: f.p99 <= READ_P99_MS && f.errors === 0 });
  }
  if (r.feedReplay) {
    const x = r.feedReplay;
    rows.push([`Event feed: replay of ${int(x.events)} events over the game stream (\`GET /v1/events?after=\`), one socket`, `${int(x.perS)} events/s`, '—', '—', `first frame ${ms(x.firstMs)}`, '0', '—', '—', '—', '—', 'reported (events/s)', '—']);
  }
  if (r.gameStream) {
    const g = r.gameStream;
    rows.push([
      `Game stream (\`GET /v1/events\`): ${conf.subscribers} subscribers, ${conf.streamJoins} joins ${conf.streamIntervalMs} ms apart; latency = commit to receipt`,
      `${g.joinsPerS.toFixed(0)} events/s → ${int(g.joinsPerS * conf.subscribers)} frames/s`,
      ms(g.p50),
      ms(g.p99),
      '—',
      int(g.expected - g.receipts + g.duplicates + g.failedJoins),
      `${int(g.rssAfter)} (peak ${int(g.rssPeak)})`,
      `${pct(g.serverCpu)} / — / —`,
      '—',
      '—',
      'p99 ≤ 100 ms',
      verdict(g.p99 <= 100 && g.receipts === g.expected),
    ]);
  }
  if (r.notificationStreams) {
    const n = r.notificationStreams;
    rows.push([
      `Notification streams (\`GET /v1/users/:userId/notifications/stream\`): ${conf.subscribers} players, one stream each, one notification each (a targeted invitation), ${conf.notificationIntervalMs} ms apart; latency = commit to receipt`,
      `${n.perS.toFixed(0)} notifications/s`,
      ms(n.p50),
      ms(n.p99),
      '—',
      int(n.expected - n.receipts + n.duplicates + n.strays + n.failed),
      `${int(n.rssAfter)} (peak ${int(n.rssPeak)})`,
      `${pct(n.serverCpu)} / — / —`,
      '—',
      '—',
      'p99 ≤ 100 ms, RSS ≤ 400 MB',
      verdict(n.p99 <= 100 && n.rssPeak <= 400 && n.receipts === n.expected && n.duplicates + n.strays === 0),
    ]);
  }
  for (const w of r.webhooks) {
    rows.push([
      `Webhook deliveries to a local receiver answering after ${w.latencyMs} ms (${int(w.delivered + w.notDelivered)} due at once)`,
      `${int(w.perS)} deliveries/s`,
      '—',
      '—',
      '—',
      int(w.notDelivered),
      int(w.rss),
      cpu(w.cpu),
      perReq(w.cpu, w.perS, NaN),
      '—',
      '≥ 500 deliveries/s',
      verdict(w.perS >= 500 && w.notDelivered === 0),
    ]);
  }

  if (r.erasure) {
    const e = r.erasure;
    rows.push([
      `Erase a player with ${int(e.removed.friendships)} friends, ${int(e.removed.memberships)} memberships, 100,000 audit entries and 20,000 events (\`DELETE /v1/users/:userId\`, one request, nothing else running, after a checkpoint)`,
      '—',
      '—',
      '—',
      `${(e.ms / 1000).toFixed(2)} s`,
      '0',
      '—',
      '—',
      '—',
      '—',
      '≤ 5 s',
      verdict(e.ms <= 5000),
    ]);
    rows.push([
      `Other players joining and leaving the 200 groups of a second such player while it is erased (${e.writers} connections; the erasure took ${(e.loadedMs / 1000).toFixed(2)} s under this load; ${int(e.writes)} answers overlapped it; before it: p99 ${ms(e.beforeP99)}, longest ${ms(e.beforeMax)})`,
      '—',
      ms(e.duringP50),
      ms(e.duringP99),
      `longest ${ms(e.duringMax)}`,
      int(e.failed),
      '—',
      '—',
      '—',
      '—',
      'none waits > 1 s',
      verdict(e.duringMax <= 1000 && e.failed === 0),
    ]);
  }
  if (r.export) {
    const x = r.export;
    rows.push([
      `Export a player with ${int(x.counts.friends)} friends, ${int(x.counts.audit)} audit entries and ${int(x.counts.events)} events (\`GET /v1/users/:userId/export\`, one request: ${x.documentMb.toFixed(1)} MB in ${int(x.chunks)} chunks, whole after ${(x.totalMs / 1000).toFixed(2)} s; server RSS ${x.rssBefore.toFixed(0)} MB, peak ${x.rssPeak.toFixed(0)} MB; a tenth of that history, ${x.small.documentMb.toFixed(1)} MB: RSS +${x.small.rssRiseMb.toFixed(0)} MB; from a server with its heap capped at ${x.capped.heapMb} MB: ${x.capped.ok ? 'whole' : `failed: ${x.capped.failure}`})`,
      '—',
      `first byte ${ms(x.firstByteMs)}`,
      '—',
      `RSS +${x.rssRiseMb.toFixed(0)} MB`,
      '0',
      '—',
      '—',
      '—',
      '—',
      'starts ≤ 1 s, memory flat',
      // Flat: the whole document comes from a server whose heap could not hold it.
      verdict(x.firstByteMs <= 1000 && x.capped.ok),
    ]);
  }
  if (r.observability) {
    const m = r.observability.modes;
    for (const key of ['off', 'metrics', 'both']) {
      const x = m[key];
      if (!x) continue;
      const ratio = key === 'off' ? '—' : `${x.permRatio.toFixed(2)} / ${x.joinRatio.toFixed(2)} × off (median of the rounds' ratios)`;
      rows.push([
        `Observability cost, ${x.name}: permission check from cache / join then leave (a server of its own, medians of ${x.rounds} rounds: ${x.permAll.map(int).join(', ')} / ${x.joinAll.map(int).join(', ')})${x.series ? `; ${int(x.series)} series on /metrics` : ''}`,
        `${int(x.permRps)} / ${int(x.joinRps)}`,
        '—',
        `${ms(x.permP99)} / ${ms(x.joinP99)}`,
        '—',
        '0',
        '—',
        '—',
        `${(x.permCpuUs / 1000).toFixed(3)} / ${(x.joinCpuUs / 1000).toFixed(2)} server ms per request`,
        ratio,
        key === 'metrics' ? '≥ 0.95 × off' : 'reported',
        key === 'metrics' ? verdict(x.permRatio >= 0.95 && x.joinRatio >= 0.95) : '—',
      ]);
    }
  }
  if (r.nameMatch) {
    const x = r.nameMatch;
    rows.push([
      `Name matcher (EXTENSIONS X10): a policy of ${int(x.words)} words checks a ${x.nameLength}-character name, in process (bench/lib/name-match.mjs; compiling the policy took ${ms(x.compileMs)} ms, once per config change)`,
      int(x.checksPerS),
      x.p50.toFixed(4),
      x.p99.toFixed(4),
      '—',
      '0',
      '—',
      '—',
      '—',
      '—',
      `p50 ≤ ${NAME_MATCH_TARGET_MS} ms a check`,
      verdict(x.p50 <= NAME_MATCH_TARGET_MS),
    ]);
  }
  const missed = rows.filter((row) => row.at(-1) === '**missed**').map((row) => row[0]);
  const out = [];
  const p = (...lines) => out.push(...lines);
  p('# Guildhall benchmark: latest run', '');
  p(`- **Date**: ${ctx.startedAt.toISOString()}; the suite ran ${(ctx.totalS / 60).toFixed(1)} min (after the build), of which seeding ${(seeded.totalMs / 1000).toFixed(0)} s.`);
  p(`- **Machine**: ${ctx.machine.cores} cores (${ctx.machine.model}), ${ctx.machine.memoryGb.toFixed(1)} GB memory; load average (1/5/15 min) ${ctx.loadBefore} before, ${ctx.loadAfter} after.`);
  p(`- **Code**: ${ctx.code}.`);
  const pgOrigin = ctx.postgres.replica
    ? "BENCH_REPLICA=1: the system's PostgreSQL 15 run by the bench as a primary, with the embedded cluster's flags (fsync, synchronous_commit and full_page_writes off), streaming to a hot standby for the read rows"
    : ctx.postgres.embedded
      ? 'embedded, with its flags only: fsync, synchronous_commit and full_page_writes off'
      : 'the server of DATABASE_URL, scratch database';
  p(`- **Software**: Node ${ctx.node}; PostgreSQL ${ctx.postgres.version} (${pgOrigin}), untuned otherwise.`);
  p(
    `- **Load**: autocannon, ${conf.connections} connections, ${conf.warmupS} s warm-up then ${conf.durationS} s measured per scenario, then ${conf.aloneS} s on one connection ("p50 alone"). The server, Postgres and the load generator share the ${ctx.machine.cores} cores.`,
  );
  p(`- **Server**: the built \`dist/src/main.js\`, NODE_ENV=production, LOG_LEVEL=warn, RATE_LIMIT_PER_MINUTE=0, WEBHOOK_ALLOW_PRIVATE_HOSTS=true, default pool (DATABASE_POOL_MAX=10); its peak RSS over the whole run (VmHWM) ${int(ctx.serverHwm)} MB.`);
  p(
    `- **Dataset** (one game${conf.scale !== 1 ? `, BENCH_SCALE=${conf.scale}: NOT the issue's sizes` : ''}): ${int(sizes.groups)} groups; ${int(sizes.members)} members, ${int(sizes.bigGroup)} of them in one group; ${int(sizes.users)} users with ${sizes.friendsPerUser} friends each (${int(seeded.friendRows)} friend rows); ${int(sizes.audit)} audit entries, ${int(sizes.longHistory)} of them in one group${sizes.searchGroups ? `; and a second game of ${int(sizes.searchGroups)} groups (names, tags, member counters, no member rows) for the search rows` : ''}. Database size ${seeded.size}.`,
  );
  p(`- **Seed**: ${(seeded.totalMs / 1000).toFixed(1)} s, set-based SQL (${seeded.bulkMode}):`);
  for (const st of seeded.steps) p(`  - ${st.name}: ${(st.ms / 1000).toFixed(1)} s`);
  p('');
  p('| Scenario | Req/s | p50 (ms) | p99 (ms) | p50 alone (ms) | Errors | Server RSS (MB) | CPU % server / PG / client | Per request: server CPU ms / PG CPU ms / DB transactions | Ratio to ceiling | Target | Met |');
  p('|---|--:|--:|--:|--:|--:|--:|--:|--:|---|---|---|');
  for (const row of rows) p(`| ${row.join(' | ')} |`);
  p('');
  p(missed.length ? `**Missed targets**: ${missed.length}: ${missed.map((m) => m.split(' (')[0].split(';')[0]).join('; ')}.` : '**Every target met.**');
  p('');
  p('## How to read it', '');
  p('- **Errors** are non-2xx answers plus socket errors and timeouts. Latencies are of 2xx answers.');
  if (r.nameMatch) {
    p(
      `- **Name matcher**: the built matcher checking one name in this process before the database starts, ${BATCHES_NOTE}; Req/s is checks per second at the p50. The policy's words share beginnings with the name's words so that walks go deep, and the name holds spelled-out letters and look-alikes.`,
    );
  }
  p("- **Server RSS** is the server process's VmRSS read from /proc right after the measured run (for a ceiling: the ceiling's process).");
  p('- **CPU** is over the measured run, in % of one core (200 = both cores): the measured process, the Postgres cluster (postmaster and backends), and the load generator (this process). **Per request**: the CPU time of the measured process and of Postgres divided by the requests answered, and the transactions the database committed per request (a read runs each statement on its own, so for reads this is the statements per request; Postgres publishes its counters about once a second, so it is within ~10 %).');
  p('- **p50 alone** is the median latency on one connection, nothing else in flight: the cost of one request without queueing. With 50 connections in a closed loop, the mean latency is 50 / (req/s) (Little\'s law): below ~1 000 req/s it cannot be under 50 ms.');
  p(
    `- **Ratio**: permission checks and reads against the framework ceiling (the minimal NestJS app), the mean of its ${frameworkRuns.length === 2 ? 'two runs (before the scenarios, and right after the cache-hit check: one run drifts from the next on a shared machine)' : 'run'}: ${int(framework)} req/s; the writes against pgbench's TPC-B-like transactions/s on the same server in the same run${ctx.pgbench ? ` (${ctx.pgbench.version}: ${int(ctx.pgbench.tps)} transactions/s, ${int(ctx.pgbench.transactions)} in ${PGBENCH.durationS} s)` : ' (not run: pgbench was not on the PATH)'}; the framework ceiling against the HTTP ceiling.`,
  );
  p(
    "- **Its SQL alone** (the row above each read row): the database ceiling of that row, measured right after it: pgbench -f on the bench's database, as many clients and seconds as the row's HTTP run, one script per distinct set of statements a request sent, weighted by how many requests sent it, a transaction = one request's statements (latencies from pgbench's per-transaction log). Query mode: `prepared` (each statement planned once a connection) when the service ran every captured statement as a named prepared statement, `extended` (parsed and planned on every call, as an unnamed statement) otherwise and for the search; with the parameters written in, each distinct set is prepared once a connection, which a service's statement with parameters is not: a little planning the service does not pay. For the lists, friends, audit, notifications and the permission check, the statements are those 100 of the row's requests (the same random parameters) really sent, caught on the wire between a second server of the same build and Postgres (bench/lib/capture.mjs: the API key and game config lookups when they miss the cache, BEGIN and COMMIT, the page, its counts), parameters written in as literals; for the group search, those the built repository writes for each query (bench/lib/search.mjs). Target: the read at ≥ 0.5 × its SQL alone.",
  );
  p(
    `- **Write scenarios** (bench/lib/write-scenarios.mjs): each connection takes a work item from a pool of ${4 * conf.connections}, runs the scenario's requests on it in order and gives it back, so every request succeeds and the dataset ends as it began; req/s counts every request of the cycle (a leave or an unban too), and a cycle cut off by the end of a run is undone afterwards. "Over many groups": the items are spread over that many groups; "on one hot group": all in one public group made for the run (its ${4 * conf.connections} role and override items are members of it). An invitation is targeted at the user and accepted by its code; a group ban is of a user who is not a member; the role of an assignment is one made in each item's group; a friend request is between two users who are not friends and the friendship is removed after the accept; a created group is public with its creator as first member. The two targeted-invitation rows run one after the other over the same groups, the invitation alone (the invitations are left pending, as the created groups stay): to an id the game has never seen, which notifies nobody, then to a seeded player, which also writes that player's notification (EXTENSIONS X9) in the same transaction; the second's req/s over the first's is what a notification costs. The group create also runs twice, one after the other with names of the same shape: in the seeded game, which has no name policy, then in a second game whose name policy holds the name matcher's 1,000 words (500 blocked, 500 reserved) and lets the names through, so each create checks its name against all of them and succeeds (EXTENSIONS X10); the second's req/s over the first's is what the check costs (its creators are new to that game: the first create of each, mostly in the warm-up, also adds their identity). The join scenario's webhook endpoint is enabled again during these, so their member events are delivered too. These run after the read scenarios, so that the reads see the dataset as seeded.`,
  );
  p(
    `- **Join then leave**: each connection takes a (public group, user) pair, joins, leaves, and gives the pair back, so every request succeeds (a join is 201, a leave 200); one request/s is one join or one leave, one transaction each. An enabled webhook endpoint subscribes to both events, so each one is also a delivery, which the server's worker takes up from the endpoint's position and delivers to the local receiver meanwhile (${int(jl.webhook.delivered)} delivered during the scenario, ${int(jl.webhook.backlog)} still pending at its end; from an event's \`occurredAt\` to its first arrival at the receiver p50 ${ms(jl.webhook.lagP50)} ms, p99 ${ms(jl.webhook.lagP99)} ms; the endpoint is then disabled).`,
  );
  p(
    dbCeilings.length
      ? `- **Our SQL alone**: the built MembersService run on a shim of TypeORM's DataSource over a plain pg.Pool (bench/lib/db-ceiling.mjs): exactly the statements the service sends, each join and each leave in its own transaction, on ${dbCeilings[0].connections} concurrent clients like the scenario's ${conf.connections} connections; no HTTP, no NestJS, no TypeORM. Its ${dbCeilings[1].connections}-client run (the server's pool size) is shown beside it. It is what our statements cost, not what the database can do: that is pgbench's row.`
      : '- **Our SQL alone**: not run.',
  );
  p(
    `- **Live stream**: latency from the event's \`occurredAt\` (stamped when the join staged it, right before its commit) to the arrival of each copy at each subscriber, so it includes the commit; ${int(s.receipts)} of ${int(s.expected)} copies arrived${s.duplicates ? `, ${s.duplicates} duplicates` : ''}${s.closedEarly ? `, ${s.closedEarly} streams closed early` : ''}. ${conf.subscribers} streams opened in ${s.openS.toFixed(1)} s; RSS ${int(s.rssIdle)} MB before them, ${int(s.rssSubscribed)} MB with them, peak ${int(s.rssPeak)} MB. The subscribers run in the load generator: its own event-loop delay p99 was ${ms(s.clientLoopDelayP99)} ms.`,
  );
  if (r.notificationStreams) {
    const n = r.notificationStreams;
    p(
      `- **Notification streams**: latency from the \`occurredAt\` of the invitation's \`invitation.created\` event (stamped when the write staged it, right before its commit, as for the live stream) to the notification's arrival on its player's stream, so it includes the commit; from the notification's \`createdAt\` instead (the database's now() when the invitation's transaction began, so the whole transaction too): p50 ${ms(n.fromStartP50)} ms, p99 ${ms(n.fromStartP99)} ms. ${int(n.receipts)} of ${int(n.expected)} arrived${n.duplicates ? `, ${n.duplicates} duplicates` : ''}${n.strays ? `, ${n.strays} on another player's stream` : ''}${n.closedEarly ? `, ${n.closedEarly} streams closed early` : ''}, the slowest after ${ms(n.max)} ms. ${conf.subscribers} streams opened in ${n.openS.toFixed(1)} s; RSS ${int(n.rssIdle)} MB before them, ${int(n.rssSubscribed)} MB with them, peak ${int(n.rssPeak)} MB.`,
    );
  }
  if (r.feed) {
    p(
      `- **Event feed**: ${int(r.feed.retained)} retained events (${int(conf.feedEvents * conf.scale)} of them seeded by set-based SQL in ${(r.feed.seedMs / 1000).toFixed(0)} s, in transactions of 250 000). A page is read from a random position among 1000 spread over the feed; the replay starts ${int(conf.replayEvents)} events before the end and is timed from the request to the last frame; the game stream's subscribers are live only and receive every event of the game.`,
    );
  }
  p(
    `- **Webhooks**: ${int(conf.deliveries)} events written by one SQL statement (as the unit of work writes a committed event: each is queued for the endpoint by its place after the endpoint's position in the feed), then drained by the server's worker, which writes each delivery's row with its result; deliveries/s = delivered / (last completed_at − commit). ${r.webhooks
      .map(
        (w) =>
          `Receiver answering after ${w.latencyMs} ms: the worker claimed ${int(w.claims)} times (claim sizes ${w.claimSizes.join(', ')}; claim to claim p50 ${ms(w.claimGapP50)} ms, p99 ${ms(w.claimGapP99)} ms); at most ${w.maxInFlight} in flight at once at the receiver.`,
      )
      .join(' ')}`,
  );
  p('');
  p('## The write path: statements of one join and one leave', '');
  p('As sent by the service (long ones cut in the middle), each a round trip:', '');
  for (const [label, list] of [['join', ctx.writeStatements.join], ['leave', ctx.writeStatements.leave]]) {
    p(`- ${label}:`);
    for (const sql of list) p(`  - \`${short(sql)}\``);
  }
  p('');
  const profiled = Object.values(r).filter((x) => x?.statements?.statements.length);
  if (profiled.length) {
    p("## Where each write scenario's database time goes (pg_stat_statements, over its measured run)", '');
    p(
      'Execution time inside Postgres only (not planning, not the wait for a CPU or a lock outside the statement), summed per request; ' +
        'the statements with the most of it, with how often a request runs each one, its mean execution time, its share, and the shared buffers it touches and the WAL it writes a call.',
      '',
    );
    for (const res of profiled) {
      const st = res.statements;
      const wal = res.walBytesPerRequest === undefined ? '' : `, ${int(res.walBytesPerRequest)} WAL bytes (pg_stat_wal: the whole cluster, commit records and vacuum included)`;
      const c = res.counters;
      const hot = c?.deliveryUpdates ? ` Its webhook deliveries were updated ${int(c.deliveryUpdates)} times (claims and results), ${Math.round((100 * c.deliveryHotUpdates) / c.deliveryUpdates)} % of them HOT.` : '';
      p(`**${res.name}**: ${ms(st.msPerRequest)} ms of statement execution and ${int(st.buffersPerRequest)} shared buffers${wal} a request.${hot}`, '');
      p('| Statement | Calls a request | Mean (ms) | Planning a call (ms) | Share | Buffers a call | WAL bytes a call |');
      p('|---|--:|--:|--:|--:|--:|--:|');
      for (const x of st.statements) {
        const plan = x.planMsPerCall === null || x.planMsPerCall === undefined ? '—' : ms(x.planMsPerCall);
        p(`| \`${short(x.sql).replace(/\|/g, '\\|')}\` | ${x.perRequest.toFixed(2)} | ${ms(x.meanMs)} | ${plan} | ${Math.round(x.share * 100)} % | ${int(x.blocksPerCall)} | ${int(x.walBytesPerCall)} |`);
      }
      p('');
    }
  }
  if (r.walJoin) {
    p('## One join and one leave, dissected (pg_walinspect)', '');
    p(
      `The WAL records of each request's own transaction, by resource manager and record type, the mean of ${r.walJoin.rounds} joins and ${r.walJoin.rounds} leaves ` +
        `made one at a time with one endpoint subscribed; full_page_writes ${r.walJoin.fullPageWrites} (an image is written for a page's first change after each checkpoint).`,
      '',
    );
    p('| Request | Record | Records | Bytes | Of them full-page images |');
    p('|---|---|--:|--:|--:|');
    for (const kind of ['join', 'leave']) {
      for (const x of r.walJoin[kind]) p(`| ${kind} | ${x.rmgr} ${x.type} | ${x.records.toFixed(1)} | ${int(x.bytes)} | ${int(x.fpi)} |`);
    }
    p('');
  }
  if (r.beforeAfter) p(...renderBeforeAfter(r.beforeAfter, ctx.before));
  if (Array.isArray(r.joinLeave?.walRecords)) {
    p('## Join then leave under load: the whole WAL by record (pg_walinspect)', '');
    p(
      `Every WAL record the cluster wrote during the measured run of "${r.joinLeave.name}", by resource manager and record type, per request: ` +
        'beside the requests\' own records, the webhook worker, autovacuum and the GIN pending lists\' cleanup, the multixacts of concurrent key locks, and the full-page images.',
      '',
    );
    p('| Record | Records a request | Bytes a request | Images a request |');
    p('|---|--:|--:|--:|');
    for (const x of r.joinLeave.walRecords) p(`| ${x.rmgr} ${x.type} | ${x.records.toFixed(2)} | ${int(x.bytes)} | ${int(x.fpi)} |`);
    p('');
  }
  if (r.replicaReads) p(...renderReplicaTable(r.replicaReads), '');
  p("## The read scenarios' main statement (EXPLAIN ANALYZE, warm, one execution)", '');
  p('| Scenario | Execution (ms) | Planning (ms) | p99 under load (ms) |');
  p('|---|--:|--:|--:|');
  for (const [k, plan] of Object.entries(plans)) {
    p(`| ${r[k]?.name ?? k} | ${plan.error ? `n/a (${plan.error})` : ms(plan.executionMs)} | ${plan.error ? '' : ms(plan.planningMs)} | ${ms(r[k]?.p99)} |`);
  }
  const slow = Object.entries(plans).filter(([k, plan]) => !plan.error && r[k]?.p99 > READ_P99_MS);
  if (slow.length) {
    p('', `### Plans of the read scenarios whose p99 is over ${READ_P99_MS} ms`, '');
    for (const [k, plan] of slow) {
      p(`${r[k].name}:`, '', '```', ...plan.lines, '```', '');
    }
  }
  return out.join('\n');
}
