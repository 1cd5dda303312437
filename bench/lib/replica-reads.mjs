// BENCH_REPLICA=1, the read rows' second measure: a standby taken from the primary once the read
// rows are set up, and a second server on the same database whose replica routes read from it
// (DATABASE_READ_URL), measured row by row right after the first server, so that both see the
// same machine at about the same time.
import pg from 'pg';
import { measureHttp } from './load.mjs';
import { databaseUrl } from './postgres.mjs';
import { lagSampler } from './replica.mjs';
import { freePort, isRunning, log, startNode, stopNode, waitHttp } from './processes.mjs';

/**
 * Takes the standby and starts the second server. `primary` is startPrimary()'s; `db` openDatabase()'s;
 * `serverArgs(port, extraEnv)` startNode's arguments for one more server like the first (the
 * second one differs by PORT and DATABASE_READ_URL only); `rowsFor` read-scenarios.mjs's; `measureOpts` measureHttp's options but
 * the server's pid. What it starts is recorded in `started` (`replicaServer`, `clients`) for the
 * bench's cleanup. Returns `{ standbyOpts, measure(row), finish() }`: `standbyOpts` makes the
 * first server's measure read the standby's CPU and transactions too; `finish()` stops the second
 * server and the standby, and returns the figures.
 */
export async function startReplicaReads({ primary, db, serverArgs, rowsFor, measureOpts, started }) {
  const standby = await primary.startStandby();
  const connect = async (url) => {
    const c = new pg.Client({ connectionString: url });
    started.clients.push(c);
    c.on('error', (err) => log(`database connection lost: ${err.message}`));
    await c.connect();
    return c;
  };
  const onStandby = await connect(databaseUrl(standby.url(), db.name));
  const onPrimary = await connect(primary.primaryUrl());
  const version = (await onStandby.query('SHOW server_version')).rows[0].server_version;
  const standbyOpts = {
    standby: {
      postmasterPid: standby.postmasterPid(),
      transactions: async () =>
        Number((await onStandby.query('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0].n),
    },
  };

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = (started.replicaServer = startNode('guildhall (replica reads)', ...serverArgs(port, { DATABASE_READ_URL: databaseUrl(standby.url(), db.name) })));
  await waitHttp(server, `${base}/`);
  log(`second server pid ${server.pid} on ${base}, DATABASE_READ_URL on the standby (PostgreSQL ${version}, postmaster pid ${standbyOpts.standby.postmasterPid})`);
  const rows = new Map(rowsFor(base).map((row) => [row.key, row]));
  const figures = {};

  // `options`: what the row's own run took beside the defaults (the search rows' connections).
  const measure = async ({ key, name }, without, options = {}) => {
    if (!isRunning(server)) throw new Error(`the second server died:\n${server.tail()}`);
    log(`measuring with the replica: ${name}`);
    const sampler = lagSampler(onPrimary);
    let r;
    try {
      r = await measureHttp(rows.get(key).target, { ...measureOpts, ...standbyOpts, ...options, serverPid: server.pid });
    } catch (err) {
      await sampler.stop().catch(() => undefined); // the run's failure is the one to report
      throw err;
    }
    const lag = await sampler.stop();
    figures[key] = { name, without, with: r, lag };
    const perRequest = (p) => (p / 100 / r.rps) * 1000;
    log(
      `  ${Math.round(r.rps)} req/s (${(r.rps / without.rps).toFixed(2)} × without), p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors};` +
        ` CPU ms per request: server ${perRequest(r.cpu.server).toFixed(3)}, primary ${perRequest(r.cpu.postgres).toFixed(3)}, standby ${perRequest(r.cpu.standby).toFixed(3)};` +
        ` transactions a request: primary ${r.xactsPerRequest.toFixed(1)}, standby ${r.standbyXactsPerRequest.toFixed(1)};` +
        ` replay: at most ${Math.round(lag.maxBytes)} bytes behind, replay_lag ${lag.maxLagMs === null ? 'none reported' : `${lag.maxLagMs.toFixed(1)} ms at most`}`,
    );
  };

  const finish = async () => {
    await stopNode(server);
    for (const c of [onStandby, onPrimary]) {
      await c.end().catch(() => undefined);
      started.clients.splice(started.clients.indexOf(c), 1);
    }
    await standby.stop();
    log('stopped the second server and the standby');
    return { version, takenS: standby.seconds, rows: figures };
  };
  return { standbyOpts, measure, finish };
}
