// The Postgres the suite runs on: a scratch database on DATABASE_URL's server, or, when
// DATABASE_URL is unset, a throwaway embedded cluster (as the test global setup starts one).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { log, sleep } from './processes.mjs';

export function databaseUrl(serverUrl, database) {
  const u = new URL(serverUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined); // a dropped connection fails the query in flight instead
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Starts (or connects to) the server and creates the scratch database: on `serverUrl` when given
 * (the BENCH_REPLICA=1 primary), else on DATABASE_URL's server or an embedded cluster. Returns
 * `{ url, serverUrl, embedded, version, postmasterPid, stop }`; `stop()` drops the database and
 * stops the embedded cluster, and may be called more than once.
 */
export async function openDatabase(root, { serverUrl: given } = {}) {
  let serverUrl = given ?? process.env.DATABASE_URL;
  let embedded = null;
  let dataDir = null;
  if (!serverUrl) {
    const require = createRequire(join(root, 'package.json'));
    const { startEmbeddedPostgres } = require(join(root, 'dist/src/db/embedded-postgres.js'));
    dataDir = mkdtempSync(join(tmpdir(), 'guildhall-bench-'));
    chmodSync(dataDir, 0o755); // the cluster runs as `postgres` when we are root
    log(`starting an embedded Postgres in ${dataDir}`);
    try {
      // pg_stat_statements: where each write scenario's database time goes, planning included (statements.mjs).
      embedded = await startEmbeddedPostgres({
        dataDir,
        ephemeral: true,
        settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' },
      });
    } catch (err) {
      rmSync(dataDir, { recursive: true, force: true });
      throw err;
    }
    serverUrl = embedded.url;
  }
  const name = `gh_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  let created = false;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // BENCH_KEEP_DB: a database server's bench database is left for EXPLAIN after the run.
    if (created && process.env.BENCH_KEEP_DB && !embedded) log(`kept database ${name} (BENCH_KEEP_DB)`);
    else if (created) {
      await withClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
        .then(() => log(`dropped database ${name}`))
        .catch((err) => log(`could not drop database ${name}: ${err.message}`));
    }
    if (embedded) {
      await embedded.stop().catch((err) => log(`could not stop the embedded Postgres: ${err.message}`));
      // After a Ctrl-C the cluster may still be shutting down on its own: wait until it is gone.
      const pidFile = join(dataDir, 'pg', 'postmaster.pid');
      for (let i = 0; i < 100 && existsSync(pidFile); i++) await sleep(100);
      try {
        rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
        log('stopped the embedded Postgres');
      } catch (err) {
        log(`could not remove ${dataDir}: ${err.message}`);
      }
    }
  };
  try {
    const info = await withClient(serverUrl, async (c) => {
      await c.query(`CREATE DATABASE ${name}`);
      created = true;
      const version = (await c.query('SHOW server_version')).rows[0].server_version;
      // The postmaster's pid, to sum the cluster's CPU time: readable when the server is local.
      let postmasterPid = null;
      try {
        const dir = (await c.query('SHOW data_directory')).rows[0].data_directory;
        postmasterPid = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
      } catch {
        // not a superuser, or not on this machine
      }
      const superuser = (await c.query(`SELECT rolsuper FROM pg_roles WHERE rolname = current_user`)).rows[0]?.rolsuper === true;
      return { version, postmasterPid, superuser };
    });
    log(`database ${name} on ${new URL(serverUrl).host} (PostgreSQL ${info.version}${embedded ? ', embedded' : ''})`);
    return { url: databaseUrl(serverUrl, name), serverUrl, name, embedded: Boolean(embedded), ...info, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Applies the migrations with the built data source, as the server does on boot. */
export async function migrate(root, url) {
  const require = createRequire(join(root, 'package.json'));
  const { createDataSource, runMigrations } = require(join(root, 'dist/src/db/data-source.js'));
  const ds = createDataSource({ url, poolMax: 2, applicationName: 'guildhall-bench' });
  await ds.initialize();
  try {
    await runMigrations(ds);
  } finally {
    await ds.destroy();
  }
}
