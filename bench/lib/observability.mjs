// What watching the service costs (issue 31): the permission check from cache and the join then
// leave, each on a server started for the purpose with metrics and tracing off, with metrics on
// (METRICS_PORT, scraped every 15 s as a Prometheus commonly does), and with both on (traces exported over
// OTLP/HTTP to a local sink, sampled at 10%). The three servers run one after another on the same
// database, and the modes are measured in turn (three rounds by default), so a drift of the machine
// falls on all three; each mode's figure is the median of its rounds.
import { createServer } from 'node:http';
import { freePort, log, sleep, startNode, stopNode, waitHttp } from './processes.mjs';
import { measureHttp } from './load.mjs';
import { cycle } from './write-scenarios.mjs';

export const OBSERVABILITY_MODES = [
  { key: 'off', name: 'metrics and tracing off', env: () => ({}) },
  { key: 'metrics', name: 'metrics on', env: ({ metricsPort }) => ({ METRICS_PORT: String(metricsPort) }) },
  {
    key: 'both',
    name: 'metrics and tracing on, 10% of traces sampled',
    env: ({ metricsPort, otlp }) => ({
      METRICS_PORT: String(metricsPort),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    }),
  },
];

/** An OTLP/HTTP receiver that accepts and counts export requests, as a collector would. */
async function startSink() {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, requests: () => requests, close: () => new Promise((r) => server.close(r)) };
}

/** Scrapes `url` every `everyMs` while it runs, first at once; the last answer's size and series count. */
function startScraper(url, everyMs = 15_000) {
  let running = true;
  const last = { series: 0, bytes: 0, scrapes: 0 };
  const loop = (async () => {
    while (running) {
      try {
        const text = await (await fetch(url)).text();
        last.bytes = text.length;
        last.series = text.split('\n').filter((l) => l && !l.startsWith('#')).length;
        last.scrapes++;
      } catch {
        // the server is starting or stopping
      }
      const until = Date.now() + everyMs;
      while (running && Date.now() < until) await sleep(100);
    }
  })();
  return { last, stop: async () => ((running = false), await loop) };
}

/**
 * Measures each mode's permission check (cache hit) and join then leave. `serverArgs(port, env)`
 * gives startNode's arguments for a server on `port` with `env` added; `hitPath` is the checked
 * permission; `joinLeave` the join scenario (its items and steps) as the write table runs it.
 */
export async function measureObservability({ serverArgs, hitPath, headers, joinLeave, measureOpts, rounds = 3 }) {
  const sink = await startSink();
  const rows = {};
  try {
    for (let round = 0; round < rounds; round++) {
      for (const mode of OBSERVABILITY_MODES) {
        const [port, metricsPort] = [await freePort(), await freePort()];
        const base = `http://127.0.0.1:${port}`;
        const server = startNode(`guildhall (${mode.key})`, ...serverArgs(port, mode.env({ metricsPort, otlp: sink.url })));
        try {
          await waitHttp(server, `${base}/`);
          const scraper = mode.key === 'off' ? null : startScraper(`http://127.0.0.1:${metricsPort}/metrics`);
          log(`observability, ${mode.name} (round ${round + 1}): permission check, then join and leave`);
          const perm = await measureHttp({ url: `${base}${hitPath}`, headers }, { ...measureOpts, serverPid: server.pid });
          const join = await measureHttp({ headers, ...cycle({ base, headers, ...joinLeave }) }, { ...measureOpts, serverPid: server.pid });
          await scraper?.stop();
          log(`  ${Math.round(perm.rps)} checks/s (p99 ${perm.p99} ms, ${Math.round((perm.cpu.server / 100 / perm.rps) * 1e6)} µs server CPU each), ${Math.round(join.rps)} joins or leaves/s (p99 ${join.p99} ms)${scraper ? `; ${scraper.last.series} series` : ''}`);
          const row = (rows[mode.key] ??= { name: mode.name, perm: [], join: [], series: 0 });
          row.perm.push(perm);
          row.join.push(join);
          if (scraper) row.series = Math.max(row.series, scraper.last.series);
        } finally {
          await stopNode(server);
        }
      }
    }
  } finally {
    await sink.close();
  }
  // The median of the rounds: on a shared machine one round now and then runs at a fraction of
  // the others' speed, whichever mode it falls on.
  const median = (runs, f) => {
    const v = runs.map(f).sort((a, b) => a - b);
    return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  };
  /** The server's CPU time per request, in µs (its CPU % of one core over the run / requests per second). */
  const cpuUs = (run) => (run.cpu.server / 100 / run.rps) * 1e6;
  // Each round measures the modes one after another: a mode's ratio to off is the median of its
  // rounds' ratios, each taken against the off run just before it, so a drift of the machine between
  // rounds cancels out.
  const pairedRatio = (k, f) => median(rows[k].perm.map((_, i) => i), (i) => f(rows[k], i) / f(rows.off, i));
  const summary = Object.fromEntries(
    Object.entries(rows).map(([k, r]) => [
      k,
      {
        name: r.name,
        permRatio: pairedRatio(k, (x, i) => x.perm[i].rps),
        joinRatio: pairedRatio(k, (x, i) => x.join[i].rps),
        series: r.series,
        rounds: r.perm.length,
        permRps: median(r.perm, (x) => x.rps),
        permP99: median(r.perm, (x) => x.p99),
        permCpuUs: median(r.perm, cpuUs),
        permAll: r.perm.map((x) => Math.round(x.rps)),
        joinRps: median(r.join, (x) => x.rps),
        joinP99: median(r.join, (x) => x.p99),
        joinCpuUs: median(r.join, cpuUs),
        joinAll: r.join.map((x) => Math.round(x.rps)),
      },
    ]),
  );
  return { modes: summary, exportRequests: sink.requests() };
}
