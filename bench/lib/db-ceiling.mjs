// The database ceiling of the write path: the statements a public join and a leave run, with raw
// `pg` on N concurrent clients, no HTTP, no NestJS, no TypeORM.
//
// The statements are not copied here (they would drift from the service): the built
// MembersService runs on a shim of TypeORM's DataSource over a pg.Pool of the service's own client class, so what reaches
// Postgres is exactly what the service sends, each join and each leave in its own transaction,
// as UnitOfWork runs it: the group lookup, then BEGIN; the group row lock; the ban check; the
// identity; the member upsert (or the member read and its deactivation); the flush (audit entry,
// outbox row, webhook deliveries, NOTIFYs); COMMIT. The service's own JavaScript is in the loop
// too (microseconds per call); the framework, the HTTP layer and TypeORM are not.
import 'reflect-metadata';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pg from 'pg';
import { cpuWindow, percentile } from './processes.mjs';

/**
 * A minimal injector over the built classes: constructor dependencies from their
 * `design:paramtypes` metadata (and Nest's `@Inject` tokens), overridden by `provided`.
 */
function injector(provided) {
  const instances = new Map(provided);
  const resolve = (token, path = []) => {
    if (instances.has(token)) return instances.get(token);
    if (typeof token !== 'function') throw new Error(`db ceiling: no value for ${String(token)} (needed by ${path.join(' <- ')})`);
    const types = Reflect.getMetadata('design:paramtypes', token) ?? [];
    const tokens = Reflect.getMetadata('self:paramtypes', token) ?? [];
    const args = types.map((t, i) => resolve(tokens.find((x) => x.index === i)?.param ?? t, [token.name, ...path]));
    const instance = new token(...args);
    instances.set(token, instance);
    return instance;
  };
  return resolve;
}

/**
 * TypeORM's DataSource as the write path uses it: `manager.query`, and a query runner for the
 * unit of work's transactions (on the service's own pg client class, so its statements go as
 * they do in the service: prepared, BEGIN and COMMIT folded into the first and last statement).
 */
function dataSourceShim(pool, statements) {
  const run = (client) => (sql, params) => {
    statements?.push(sql.replace(/\s+/g, ' ').trim());
    return client.query(sql, params).then((r) => r.rows);
  };
  return {
    manager: { query: run(pool) },
    driver: { master: pool },
    createQueryRunner() {
      let client;
      return {
        async connect() {
          client ??= await pool.connect();
          return client;
        },
        get manager() {
          return { query: run(client), queryRunner: { databaseConnection: client } };
        },
        startTransaction: () => run(client)('START TRANSACTION'),
        commitTransaction: () => run(client)('COMMIT'),
        rollbackTransaction: () => run(client)('ROLLBACK'),
        async release() {
          client?.release();
          client = undefined;
        },
      };
    },
  };
}

/** A pool of the service's own pg client class (dist/src/db/prepared-client.js). */
function servicePool(root, options) {
  const require = createRequire(join(root, 'package.json'));
  const { ServiceClient } = require(join(root, 'dist/src/db/prepared-client.js'));
  const pool = new pg.Pool({ ...options, Client: ServiceClient });
  pool.on('error', () => undefined); // an idle client dropped by the server: the next query fails instead
  return pool;
}

/**
 * Builds the built MembersService on `pool`; `statements`, when given, collects every SQL text sent.
 * `settled()` waits for the wake-ups its commits announce (CommitAnnouncer), which are sent after
 * each commit: the pool must outlive them, as the server's does (DatabaseModule's shutdown).
 */
async function membersService(root, pool, statements) {
  const require = createRequire(join(root, 'package.json'));
  const d = (p) => require(join(root, 'dist/src', p));
  const { DataSource } = require('typeorm');
  const { MembersService } = d('members/members.service.js');
  const { CommitAnnouncer } = d('db/commit-announcer.js');
  const { EventBus } = d('events/event-bus.js');
  const { PgListener } = d('db/pg-listener.js');
  const { SETTINGS } = d('config/settings.module.js');
  const { parseSettings } = d('config/settings.js');
  const { TRACING } = d('observability/tracing/tracing.module.js');
  // From 1.6.0 the writer leaves out the words the database lists, read once as a server starts.
  const names = d('db/journal-names.js');
  const unindexed = names.UNINDEXED_WORDS ? [[names.UNINDEXED_WORDS, await names.loadUnindexedWords((sql) => pool.query(sql).then((r) => r.rows))]] : [];
  const resolve = injector([
    ...unindexed,
    [TRACING, null],
    [DataSource, dataSourceShim(pool, statements)],
    [EventBus, new EventBus()],
    [PgListener, { subscribe() {} }],
    [SETTINGS, parseSettings({ DATABASE_URL: 'postgres://unused/unused' })],
  ]);
  const service = resolve(MembersService);
  const announcer = resolve(CommitAnnouncer);
  return Object.assign(service, { settled: () => announcer.settled() });
}

/** Folds the member counters' deltas as a server does between writes (the built MemberCountFolder). */
export async function foldMemberCounts(root, url) {
  const pool = servicePool(root, { connectionString: url, max: 1 });
  try {
    const { MemberCountFolder } = createRequire(join(root, 'package.json'))(join(root, 'dist/src/groups/member-count-folder.js'));
    // Its scheduler registry is for its timer, which this never starts.
    await new MemberCountFolder(dataSourceShim(pool), null).fold();
  } finally {
    await pool.end();
  }
}

/** The SQL of one join and one leave, as sent (first line of each statement), for the report. */
export async function writePathStatements(root, url, gameId, entry) {
  const pool = servicePool(root, { connectionString: url, max: 1 });
  try {
    const statements = [];
    const svc = await membersService(root, pool, statements);
    const game = { gameId, keyId: 'bench', keyPrefix: 'bench' };
    const joined = await svc.join(game, entry.groupId, { userId: entry.userId });
    const joinStatements = statements.splice(0);
    const left = await svc.leave(game, entry.groupId, entry.userId);
    if (joined.status !== 'active' || left.status !== 'left') throw new Error(`db ceiling self-check: join ${joined.status}, leave ${left.status}`);
    await svc.settled();
    return { join: joinStatements, leave: statements };
  } finally {
    await pool.end();
  }
}

/**
 * Runs join, leave, join, leave... on `connections` concurrent workers for `durationS` seconds
 * (after `warmupS`), each cycle on an entry of `pool` ({ groupId, userId } pairs, one worker per
 * entry at a time, so every join and every leave succeeds). Returns operations (joins + leaves)
 * per second and their latency percentiles.
 */
export async function runDbCeiling({ root, url, gameId, entries, connections, durationS, warmupS, postmasterPid }) {
  const pool = servicePool(root, { connectionString: url, max: connections });
  const svc = await membersService(root, pool);
  const game = { gameId, keyId: 'bench', keyPrefix: 'bench' };
  const free = [...entries];
  const phase = async (seconds) => {
    const latencies = [];
    let errors = 0;
    let firstError;
    const deadline = performance.now() + seconds * 1000;
    const worker = async () => {
      while (performance.now() < deadline) {
        const entry = free.shift();
        if (!entry) throw new Error('db ceiling: more workers than entries');
        try {
          for (const op of ['join', 'leave']) {
            const t = performance.now();
            try {
              await (op === 'join' ? svc.join(game, entry.groupId, { userId: entry.userId }) : svc.leave(game, entry.groupId, entry.userId));
              const done = performance.now();
              if (done <= deadline) latencies.push(done - t);
            } catch (err) {
              errors++;
              firstError ??= err;
            }
          }
        } finally {
          free.push(entry);
        }
      }
    };
    const cpu = cpuWindow({ postmasterPid });
    await Promise.all(Array.from({ length: connections }, worker));
    const usage = cpu();
    latencies.sort((a, b) => a - b);
    return { cpu: usage, ops: latencies.length, rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, firstError };
  };
  try {
    if (warmupS > 0) await phase(warmupS);
    const r = await phase(durationS);
    if (r.firstError) r.firstError = String(r.firstError.message ?? r.firstError);
    return r;
  } finally {
    await svc.settled();
    await pool.end();
  }
}
