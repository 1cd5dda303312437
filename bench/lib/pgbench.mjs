// The honest ceiling of the write path: pgbench's TPC-B-like transaction (five statements: three
// updates, a select and an insert) on the same Postgres in the same run, so every write scenario can
// be read as a share of what this database does on this machine right now. It needs the `pgbench`
// program (package postgresql-client); without it the row is left out and said so.
import { execFileSync, spawn } from 'node:child_process';
import { databaseUrl, withClient } from './postgres.mjs';
import { cpuWindow, log } from './processes.mjs';

export const PGBENCH = { clients: 20, threads: 2, durationS: 15, scale: 10 };

/** The pgbench program on the PATH, or null. */
export function findPgbench() {
  try {
    return execFileSync('pgbench', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** Runs the pgbench program with `args` (and `env` added) to its end: its output, or why it failed. */
export function runPgbenchProgram(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn('pgbench', args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    // A client's abort says why early in the output, before the per-script figures: keep those lines.
    const why = () => out.split('\n').filter((l) => /error|abort|fatal/i.test(l)).slice(0, 20).join('\n');
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`pgbench exited ${code}: ${why()}\n(${args.length} arguments; the output's end:)\n${out.slice(-1000)}`))));
  });
}

const figure = (out, pattern) => {
  const m = out.match(pattern);
  return m ? Number(m[1]) : NaN;
};

/**
 * Runs pgbench TPC-B-like on a scratch database next to the bench's own one, then drops it.
 * Returns `{ version, tps, latencyMs, transactions, failed, cpu }` (cpu: Postgres % of one core).
 */
export async function runPgbench({ serverUrl, name, postmasterPid }) {
  const version = findPgbench();
  if (!version) return null;
  const scratch = `${name}_pgbench`;
  const url = databaseUrl(serverUrl, scratch);
  await withClient(serverUrl, (c) => c.query(`CREATE DATABASE ${scratch}`));
  try {
    log(`pgbench: initialising scale ${PGBENCH.scale}`);
    await runPgbenchProgram(['-i', '-q', '-s', String(PGBENCH.scale), url]);
    log(`pgbench: TPC-B-like, ${PGBENCH.clients} clients, ${PGBENCH.durationS} s`);
    const cpu = cpuWindow({ postmasterPid });
    // Read just before the end: pgbench's backends exit with it, and their CPU time goes with them.
    let usage;
    const reading = setTimeout(() => (usage = cpu()), PGBENCH.durationS * 1000 - 300);
    const out = await runPgbenchProgram(['-c', String(PGBENCH.clients), '-j', String(PGBENCH.threads), '-T', String(PGBENCH.durationS), url]).finally(() => clearTimeout(reading));
    const tps = figure(out, /tps = ([\d.]+) \(without initial connection time\)/);
    if (!Number.isFinite(tps)) throw new Error(`pgbench: no tps in its output:\n${out}`);
    return {
      version,
      tps,
      latencyMs: figure(out, /latency average = ([\d.]+) ms/),
      transactions: figure(out, /number of transactions actually processed: (\d+)/),
      failed: figure(out, /number of failed transactions: (\d+)/) || 0,
      cpu: usage,
    };
  } finally {
    await withClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`)).catch((err) => log(`could not drop ${scratch}: ${err.message}`));
  }
}
