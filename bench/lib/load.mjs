// HTTP load with autocannon (as a library): a warm-up, the measured run, and a short run on one
// connection (the latency of a request with nothing else in flight), with the server's RSS and the
// CPU use of the server, Postgres and this process over the measured run.
import autocannon from 'autocannon';
import { cpuWindow, percentile, procMb } from './processes.mjs';

const active = new Set();

/** Stops every autocannon run in progress (Ctrl-C). */
export function stopLoad() {
  for (const instance of active) instance.stop();
}

/** One autocannon run; latencies of 2xx answers are kept in full (autocannon's own are whole ms). */
function cannon(opts) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const instance = autocannon({ pipelining: 1, ...opts }, (err, result) => {
      active.delete(instance);
      if (err) return reject(err);
      latencies.sort((a, b) => a - b);
      resolve({ result, p50: percentile(latencies, 50), p99: percentile(latencies, 99) });
    });
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
    active.add(instance);
  });
}

/**
 * One scenario. `dbTransactions` (optional) reads the database's committed transactions. `target` is { url, headers, requests } as autocannon takes them (`requests` built
 * fresh for each run by `requests()` when it is a function, so per-run state starts clean);
 * `after` runs after each autocannon run (to repair state a cut-off run left behind). `statements`
 * (optional, statements.mjs) is reset before the measured run and read right after it. `counters`
 * (optional, statements.mjs's writeCounters) reads cumulative database counters, returned as their
 * differences over the measured run. `walWindow` (optional, wal-dissect.mjs) is opened before the
 * measured run and closed right after it: the run's WAL by record type. `standby`
 * (optional, BENCH_REPLICA=1) is { postmasterPid, transactions }: a standby's CPU and committed
 * transactions over the measured run, as for the primary.
 */
export async function measureHttp(
  { url, headers, requests, after },
  { connections, durationS, warmupS, aloneS, serverPid, postmasterPid, dbTransactions, statements, counters, walWindow, standby },
) {
  const opts = () => ({ url, headers, requests: typeof requests === 'function' ? requests() : requests });
  if (warmupS > 0) {
    await cannon({ ...opts(), connections, duration: warmupS });
    await after?.();
  }
  const xacts0 = dbTransactions ? await dbTransactions() : NaN;
  const standbyXacts0 = standby ? await standby.transactions() : NaN;
  await statements?.reset();
  const counters0 = counters ? await counters() : null;
  const walStart = walWindow ? await walWindow.open() : null;
  const cpu = cpuWindow({ serverPid, postmasterPid, standbyPid: standby?.postmasterPid });
  const run = await cannon({ ...opts(), connections, duration: durationS });
  const r = run.result;
  const usage = cpu();
  const walRecords = walWindow ? await walWindow.close(walStart, r.requests.total) : null;
  const counted = counters0 && Object.fromEntries(Object.entries(await counters()).map(([k, v]) => [k, v - counters0[k]]));
  const xacts = dbTransactions ? (await dbTransactions()) - xacts0 : NaN;
  const standbyXacts = standby ? (await standby.transactions()) - standbyXacts0 : NaN;
  const statementTimes = statements ? await statements.top(r.requests.total) : undefined;
  const rss = serverPid ? procMb(serverPid, 'VmRSS') : NaN;
  await after?.();
  let alone = { p50: NaN };
  if (aloneS > 0) {
    alone = await cannon({ ...opts(), connections: 1, duration: aloneS });
    await after?.();
  }
  return {
    rps: r.requests.total / durationS,
    p50: run.p50,
    p99: run.p99,
    aloneP50: alone.p50,
    requests: r.requests.total,
    non2xx: r.non2xx,
    socketErrors: r.errors,
    errors: r.non2xx + r.errors,
    statusCounts: r.statusCodeStats,
    rss,
    cpu: usage,
    // Transactions the database committed per request: for reads, statements per request (each
    // runs on its own). Backends publish their counts about once a second, so this is within ~10 %.
    xactsPerRequest: xacts / r.requests.total,
    ...(standby ? { standbyXactsPerRequest: standbyXacts / r.requests.total } : {}),
    statements: statementTimes,
    ...(counted ? { counters: counted } : {}),
    ...(walRecords ? { walRecords } : {}),
  };
}
