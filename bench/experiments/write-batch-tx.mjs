#!/usr/bin/env node
// What batching would buy a whole join and leave (docs/design/write-path.md, step 13): each
// transaction as the service sends it (BEGIN; its advisory locks; the join's or the leave's
// statement; the flush of its audit entry and event; COMMIT; the commit's position), for one pair
// of a public group and a player, against the same transaction carrying k pairs: the locks of all
// in one statement, the statement rewritten over arrays of the pairs (join-reads/join.sql and
// leave.sql, the statements captured from a server), one flush of k entries and k events built by
// the service's own flushStatement. On the service's own client (dist/src/db/prepared-client.js):
// every statement prepared, two round trips a transaction. Each client's pairs its own; every plan
// generic (see run). Prints, per request (one join or one leave), PostgreSQL CPU (every process of
// the cluster, as the bench counts it) and WAL bytes. Run it on a quiet server of its own on this
// machine, on a seeded bench database (see join-reads.sh), which it changes (the pairs' members end
// `left`):
//   node bench/experiments/write-batch-tx.mjs <database url> [rounds] [seconds] [clients] [batches]
// With ISSUERS=n, n players ask instead, one request at a time each, and the clients (connections)
// serve them as a batching unit of work would, taking up to each of batches at once (and one at a
// time, as now): requests a second, PostgreSQL CPU, the mean batch and the requests' p50 and p99.
// Needs the build (dist/).
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pg from 'pg';
import { cpuWindow, percentile } from '../lib/processes.mjs';
import { captured, overArrays } from './join-reads/over-arrays.mjs';

const [url, rounds = '3', seconds = '12', clientsArg = '10', batchesArg = '8 16'] = process.argv.slice(2);
if (!url) {
  console.error('usage: node bench/experiments/write-batch-tx.mjs <database url> [rounds] [seconds] [clients] [batches]');
  process.exit(2);
}
const clients = Number(clientsArg);
const root = join(import.meta.dirname, '../..');
const require = createRequire(join(root, 'package.json'));
const { flushStatement } = require(join(root, 'dist/src/db/flush-sql.js'));
const { ServiceClient } = require(join(root, 'dist/src/db/prepared-client.js'));
const { userLockKey } = require(join(root, 'dist/src/identity/user-lock.js'));

const statements = {
  join: { one: captured('join.sql'), many: overArrays(captured('join.sql'), true) },
  leave: { one: captured('leave.sql'), many: overArrays(captured('leave.sql'), false) },
};

const idOf = () => randomBytes(12).toString('hex');
function shuffle(items) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}
const names = () => Array.from({ length: 4 }, () => randomBytes(4).readInt32BE(0));
/** The flush of `pairs`' member.joined or member.left, as the service builds it for one write each. */
function flush(kind, pairs) {
  const audit = [];
  const events = [];
  pairs.forEach((p, n) => {
    const id = idOf();
    const memberId = randomUUID();
    const action = kind === 'join' ? 'member.joined' : 'member.left';
    // The audit entry shares the event's journal row: its id is the event id's uuid.
    const entryId = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}00000000`;
    const payload = kind === 'join' ? { via: 'public-join', memberId } : { memberId, reason: 'left' };
    audit.push({ id: entryId, names: null, action, game_id: p.game, payload, group_id: p.group, target_id: p.ext, actor_user_id: p.user });
    const body = { member: { id: memberId, userId: p.ext, joinedAt: new Date().toISOString() } };
    events.push({ n, id, body, type: action, names: names(), game_id: p.game, group_id: p.group });
  });
  const parts = { audit: JSON.stringify(audit), events: JSON.stringify(events), trace: null, notifies: null, inbox: null, auditOnly: false };
  return flushStatement(parts);
}

/**
 * One transaction of `kind` for `pairs` on the service's own client, as its unit of work drives it:
 * BEGIN and the locks ride in the statement's round trip, COMMIT and the position in the flush's.
 * `one` sends the captured statement (one pair).
 */
async function transaction(client, kind, pairs, one) {
  client.startUnitOfWork();
  try {
    await client.query('START TRANSACTION');
    client.lockBeforeNext(pairs.flatMap((p) => [{ group: p.group, exclusive: false }, { key: userLockKey(p.game, p.ext), exclusive: false }]));
    const [p] = pairs;
    const fourth = kind === 'join' ? null : 'left'; // the join's passcode, the leave's status
    const values = one
      ? [p.group, p.game, p.ext, fourth, ...(kind === 'join' ? [randomUUID(), p.ext] : [])]
      : [pairs.map((x) => x.group), p.game, pairs.map((x) => x.ext), fourth, pairs.map(() => randomUUID())];
    const { rows } = await client.query(statements[kind][one ? 'one' : 'many'], values);
    const done = rows.filter((r) => r.alongside).length;
    if (done !== pairs.length) throw new Error(`write-batch-tx: ${kind} of ${pairs.length} changed ${done}`);
    const f = flush(kind, pairs);
    client.commitWithNext();
    await client.query(f.text, f.params);
    await client.query('COMMIT');
  } finally {
    client.endUnitOfWork();
  }
}

const admin = new pg.Client({ connectionString: url });
await admin.connect();
const checkpointer = (await admin.query("SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")).rows[0].pid;
const postmasterPid = Number(readFileSync(`/proc/${checkpointer}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
// Pairs of a public, uncapped group and a player who is not its member, as join-reads.sh picks them,
// shuffled: a batch's pairs are of as many groups as the bench's joins over many groups.
const { rows: found } = await admin.query(`SELECT g.id AS "group", g.game_id AS game, ui.user_id AS "user", ui.external_id AS ext
    FROM (SELECT id, game_id FROM groups
          WHERE visibility = 'public' AND max_members IS NULL AND soft_deleted_at IS NULL AND passcode_hash IS NULL
            AND id <> '01920000-0000-7000-8000-000000000000'
          ORDER BY random() LIMIT 2000) g
    CROSS JOIN LATERAL (SELECT user_id, external_id FROM user_identities u
                        WHERE u.game_id = g.game_id
                          AND NOT EXISTS (SELECT 1 FROM members m WHERE m.group_id = g.id AND m.user_id = u.user_id)
                        ORDER BY random() LIMIT 10) ui`);
const all = shuffle(found);
const batches = batchesArg.split(/\s+/).filter(Boolean).map(Number);
const issuers = Number(process.env.ISSUERS || 0);

/**
 * Each connection joins k pairs of its own in one transaction, then has them leave in a second,
 * over and over (`one`: the captured statement, one pair). Answers the requests done.
 */
const fixed = (k, one) => async (pool, deadline) => {
  const slice = Math.floor(all.length / pool.length);
  if (slice < k) throw new Error(`write-batch-tx: ${all.length} pairs are too few for ${pool.length} clients' batches of ${k}`);
  let requests = 0;
  await Promise.all(
    pool.map(async (client, c) => {
      const mine = all.slice(c * slice, (c + 1) * slice);
      while (performance.now() < deadline) {
        const start = Math.floor(Math.random() * (mine.length - k + 1));
        const pairs = mine.slice(start, start + k);
        await transaction(client, 'join', pairs, one);
        await transaction(client, 'leave', pairs, one);
        requests += 2 * pairs.length;
      }
    }),
  );
  return { requests };
};

/**
 * ISSUERS players, each a join then a leave of a pair of its own, one request at a time, served by
 * the connections as a batching unit of work would: a connection coming free takes the requests
 * waiting of the first one's kind, up to `bound`, and sends one alone as the service does now. No
 * timer: a batch is what waits. Answers the requests done by the deadline, the mean batch, and
 * each request's time from asked to answered.
 */
const queued = (bound) => async (pool, deadline) => {
  const slice = Math.floor(all.length / issuers);
  const waiting = [];
  const idle = [];
  const latencies = [];
  let requests = 0;
  let served = 0;
  let transactions = 0;
  let done = false;
  const ask = (kind, pair) =>
    new Promise((resolve, reject) => {
      waiting.push({ kind, pair, resolve, reject });
      idle.shift()?.();
    });
  const issuer = async (i) => {
    const mine = all.slice(i * slice, (i + 1) * slice);
    while (performance.now() < deadline) {
      const pair = mine[Math.floor(Math.random() * mine.length)];
      for (const kind of ['join', 'leave']) {
        const t = performance.now();
        await ask(kind, pair);
        const now = performance.now();
        if (now <= deadline) {
          requests++;
          latencies.push(now - t);
        }
      }
    }
  };
  const server = async (client) => {
    for (;;) {
      if (!waiting.length) {
        if (done) return;
        await new Promise((r) => idle.push(r));
        continue;
      }
      const { kind } = waiting[0];
      const batch = [];
      for (let i = 0; i < waiting.length && batch.length < bound; ) {
        if (waiting[i].kind === kind) batch.push(...waiting.splice(i, 1));
        else i++;
      }
      try {
        await transaction(client, kind, batch.map((b) => b.pair), batch.length === 1);
        for (const b of batch) b.resolve();
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
      served += batch.length;
      transactions++;
    }
  };
  const asking = Promise.all(Array.from({ length: issuers }, (_, i) => issuer(i))).finally(() => {
    done = true;
    for (const wake of idle.splice(0)) wake();
  });
  await Promise.all([asking, ...pool.map(server)]);
  latencies.sort((a, b) => a - b);
  return { requests, batch: served / transactions, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
};

const variants = issuers
  ? [1, ...batches].map((bound) => ({ label: bound === 1 ? 'one at a time' : `up to ${bound}`, drive: queued(bound) }))
  : [
      { label: 'as sent', drive: fixed(1, true) },
      ...[1, ...batches].map((k) => ({ label: `batch of ${k}`, drive: fixed(k, false) })),
    ];

async function run(variant, durationS) {
  const pool = Array.from({ length: clients }, () => new ServiceClient({ connectionString: url }));
  // PostgreSQL's `auto` plan cache mode keeps planning the statement over arrays on every call (its
  // generic plan, costed for ten pairs of an array of unknown length, costs more than the custom
  // plans it has made), some 1.5 ms a call for a statement of this size; the one-pair statements
  // go generic from their sixth call anyway (step 11). A batching service would set it so too.
  await Promise.all(pool.map((c) => c.connect().then(() => c.query('SET plan_cache_mode = force_generic_plan'))));
  const wal0 = BigInt((await admin.query('SELECT wal_bytes FROM pg_stat_wal')).rows[0].wal_bytes);
  const cpu = cpuWindow({ postmasterPid });
  const r = await variant.drive(pool, performance.now() + durationS * 1000);
  const used = cpu();
  const wal = BigInt((await admin.query('SELECT wal_bytes FROM pg_stat_wal')).rows[0].wal_bytes) - wal0;
  await Promise.all(pool.map((c) => c.end()));
  const perSecond = r.requests / durationS;
  return { ...r, perSecond, cpuMs: ((used.postgres / 100) * 1000) / perSecond, wal: Number(wal) / r.requests };
}

try {
  for (let round = 1; round <= Number(rounds); round++) {
    for (const v of variants) {
      await admin.query('CHECKPOINT');
      await run(v, 2);
      const r = await run(v, Number(seconds));
      const rate = Math.round(r.perSecond).toString().padStart(6);
      const wal = Math.round(r.wal).toString().padStart(5);
      const queue = r.batch ? `  batches of ${r.batch.toFixed(1)}, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms` : '';
      console.log(`round ${round} ${v.label.padEnd(13)} ${rate} requests/s  ${wal} WAL bytes a request  ${r.cpuMs.toFixed(3)} ms PostgreSQL CPU a request${queue}`);
    }
  }
} finally {
  await admin.end();
}
