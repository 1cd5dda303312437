// BENCH_REPLICA=1: the bench's own PostgreSQL 15 primary and, for the read rows, a streaming hot
// standby of it (pg_basebackup -R -X stream), each in a scratch folder on a loopback port, run as
// the `postgres` account when we are root; as test/reliability/helpers/pg-cluster.ts builds them.
// The system's programs, not the embedded build: the embedded package ships no pg_basebackup.
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withClient } from './postgres.mjs';
import { freePort, log, sleep } from './processes.mjs';

export const PG15_BIN = '/usr/lib/postgresql/15/bin';
const PROGRAMS = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'];

/** Why the clusters cannot be made here, or null. */
export function missingPostgres15() {
  const missing = PROGRAMS.map((p) => join(PG15_BIN, p)).filter((f) => !existsSync(f));
  if (!missing.length) return null;
  return `BENCH_REPLICA=1 needs PostgreSQL 15's programs, and ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing: run scripts/postgres-tools.sh (it installs Debian's postgresql-15)`;
}

// As the embedded cluster runs in the default bench (src/db/embedded-postgres.ts, ephemeral), so
// that the rows compare with its runs; plus what streaming replication needs.
const PRIMARY_SETTINGS = {
  listen_addresses: "'127.0.0.1'",
  unix_socket_directories: "''",
  max_connections: '200',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off', // an online base backup turns them on for its own duration
  shared_preload_libraries: "'pg_stat_statements'",
  lc_messages: "'C'",
  wal_level: 'replica',
  max_wal_senders: '4',
};
// Feedback: otherwise a vacuum on the primary (autovacuum after the seed) may cancel reads on the
// standby ("conflict with recovery"), which the server answers with 503.
const STANDBY_SETTINGS = { hot_standby: 'on', hot_standby_feedback: 'on' };

/**
 * The clusters' scratch folder, made now, and what runs in it: `{ startPrimary(), startStandby(),
 * stop() }`. `startPrimary()` starts the primary and returns `{ serverUrl }`; `startStandby()` takes
 * the standby from the primary as it is then and waits until it has replayed the primary's current
 * position; `stop()` stops both (immediately: their data is thrown away) and removes the folder, and
 * may be called more than once, also while they start.
 */
export function replicaClusters(root) {
  const require = createRequire(join(root, 'package.json'));
  const { serverAccount } = require(join(root, 'dist/src/db/embedded/account.js'));
  const { bestLocale, runToEnd } = require(join(root, 'dist/src/db/embedded/postgres-process.js'));
  const account = serverAccount();
  const run = async (program, args) => {
    const { code, output } = await runToEnd(join(PG15_BIN, program), args, account);
    if (code !== 0) throw new Error(`${program} ${args.join(' ')} exited with ${code}:\n${output}`);
  };
  const owned = (path) => {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    if (account) chownSync(path, account.uid, account.gid);
    return path;
  };

  const scratch = mkdtempSync(join(tmpdir(), 'guildhall-bench-replica-'));
  chmodSync(scratch, 0o755); // the clusters' account walks through it
  const clusters = [];
  let stopping = null;
  const stop = () => {
    stopping ??= (async () => {
      for (const c of [...clusters].reverse()) await c.stop();
      try {
        rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
        log('stopped and removed the primary and the standby');
      } catch (err) {
        log(`could not remove ${scratch}: ${err.message}`);
      }
    })();
    return stopping;
  };

  const cluster = async (name, dir, settings) => {
    const port = await freePort();
    appendFileSync(join(dir, 'postgresql.conf'), `\n${Object.entries({ ...settings, port: String(port) }).map(([k, v]) => `${k} = ${v}`).join('\n')}\n`);
    const logFile = join(dir, 'server.log');
    const pidFile = join(dir, 'postmaster.pid');
    const c = {
      name,
      dir,
      url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
      postmasterPid: () => {
        try {
          return Number(readFileSync(pidFile, 'utf8').split('\n')[0]) || null;
        } catch {
          return null;
        }
      },
      stop: async () => {
        if (!existsSync(pidFile)) return;
        // After a Ctrl-C the server got SIGINT too and may be shutting down already: pg_ctl then fails, the wait below stands.
        await run('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', '-t', '60', 'stop']).catch((err) => log(`pg_ctl stop (${name}): ${err.message.split('\n')[0]}`));
        for (let i = 0; i < 300 && existsSync(pidFile); i++) await sleep(100);
      },
    };
    clusters.push(c);
    if (stopping) throw new Error('stopping');
    await run('pg_ctl', ['-D', dir, '-l', logFile, '-w', '-t', '300', 'start']).catch((err) => {
      throw new Error(`${err.message}\n${existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-4000) : ''}`);
    });
    return c;
  };

  let primary = null;
  const startPrimary = async () => {
    const primaryDir = owned(join(scratch, 'primary'));
    log(`starting a PostgreSQL 15 primary in ${primaryDir}`);
    await run('initdb', [`--pgdata=${primaryDir}`, '--auth=trust', '--username=postgres', '--encoding=UTF8', `--locale=${bestLocale()}`, '--no-sync']);
    primary = await cluster('primary', primaryDir, PRIMARY_SETTINGS);
    return { serverUrl: primary.url() };
  };
  const startStandby = async () => {
    const standbyDir = owned(join(scratch, 'standby'));
    const t0 = performance.now();
    const port = new URL(primary.url()).port;
    // A fast checkpoint: a spread one would pace itself over minutes after the seed's writes.
    await run('pg_basebackup', ['-h', '127.0.0.1', '-p', port, '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    const standby = await cluster('standby', standbyDir, STANDBY_SETTINGS);
    const target = await withClient(primary.url(), async (c) => (await c.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn);
    await withClient(standby.url(), async (c) => {
      for (const until = Date.now() + 300_000; ; await sleep(50)) {
        if ((await c.query('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [target])).rows[0].ok) return;
        if (Date.now() > until) throw new Error(`the standby did not replay the primary's position ${target} within 300 s`);
      }
    });
    const seconds = (performance.now() - t0) / 1000;
    log(`standby taken and caught up with ${target} in ${seconds.toFixed(1)} s (${standbyDir})`);
    return { ...standby, seconds };
  };
  return { startPrimary, startStandby, primaryUrl: () => primary.url(), stop };
}

/**
 * Samples how far the standby is behind, every `everyMs` until `stop()`, which returns the largest
 * seen: WAL bytes not yet replayed (the primary's current position against the standby's replay
 * position, from pg_stat_replication) and pg_stat_replication's replay_lag (null while it reports
 * none: caught up and idle).
 */
export function lagSampler(primaryClient, everyMs = 250) {
  let maxBytes = 0;
  let maxLagMs = null;
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await primaryClient.query(
        'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::float8 AS bytes, (extract(epoch FROM replay_lag) * 1000)::float8 AS lag_ms FROM pg_stat_replication',
      );
      if (!rows.length) throw new Error('the standby is not streaming from the primary (pg_stat_replication is empty)');
      samples++;
      maxBytes = Math.max(maxBytes, rows[0].bytes ?? 0);
      if (rows[0].lag_ms !== null) maxLagMs = Math.max(maxLagMs ?? 0, rows[0].lag_ms);
      await sleep(everyMs);
    }
  })();
  // Kept for stop(): a failure meanwhile would otherwise be an unhandled rejection.
  const outcome = loop.then(
    () => null,
    (err) => err,
  );
  return {
    stop: async () => {
      running = false;
      const err = await outcome;
      if (err) throw err;
      return { maxBytes, maxLagMs, samples };
    },
  };
}
