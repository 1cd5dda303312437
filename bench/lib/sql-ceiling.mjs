// The database ceiling of a read row ("its SQL alone"): pgbench -f running the statements the row's
// requests send, one script per distinct statement set, weighted by how often the row sends it,
// on as many connections and for as long as the row's HTTP run, latencies from pgbench's
// per-transaction log (a transaction = one request's statements). The search rows build their
// scripts from the built repository (search.mjs); the other read rows from what a capture server
// really sent (capture.mjs).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { runPgbenchProgram as pgbench } from './pgbench.mjs';
import { cpuWindow } from './processes.mjs';

// A string literal spelled without ':' (as E'\\072'): pgbench would read ':name' as one of its variables.
export const literal = (v) => {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return literal(`{${v.map((x) => `"${String(x).replace(/(["\\])/g, '\\$1')}"`).join(',')}}`);
  const text = String(v).replace(/'/g, "''");
  return text.includes(':') || text.includes('\\') ? `E'${text.replace(/\\/g, '\\\\').replace(/:/g, '\\072')}'` : `'${text}'`;
};
/** A statement with its parameters written in as literals (`casts[i]`, when given, after the i-th): what pgbench -f runs. */
export const inlined = ({ sql, params, casts = [] }) =>
  sql.replace(/\$(\d+)/g, (_, i) => `${literal(params[Number(i) - 1])}${casts[Number(i) - 1] ? `::${casts[Number(i) - 1]}` : ''}`);

/**
 * Runs `scripts` ([{ statements: [sql text with literals], weight }]; an empty set is a request
 * that sent nothing, run as a no-op meta-command) with pgbench -f on `url`: `connections` clients,
 * a `warmupS` run, then `durationS` measured, in `mode` (pgbench -M: 'extended', the default, parses
 * and plans every statement on every call, as an unnamed statement costs the service; 'prepared'
 * once a connection, as a named one). `pgOptions`: the
 * session settings the service's connections open with (PGOPTIONS). Returns `{ tps, p50, p99,
 * failed, cpu, scripts }` (latencies in ms; cpu: the Postgres cluster's, % of one core).
 */
export async function runSqlCeiling({ url, scripts, connections, durationS, warmupS, postmasterPid, pgOptions, mode = 'extended' }) {
  if (!scripts.length) throw new Error('sql ceiling: no script');
  const dir = mkdtempSync(join(os.tmpdir(), 'guildhall-sql-ceiling-'));
  try {
    const args = [];
    for (const [i, { statements, weight }] of scripts.entries()) {
      const file = join(dir, `s${i}.sql`);
      writeFileSync(file, statements.length ? statements.map((sql) => `${sql.trim()};\n`).join('') : '\\set nothing 0\n');
      args.push('-f', `${file}@${weight}`);
    }
    const env = pgOptions ? { PGOPTIONS: pgOptions } : {};
    const common = ['-n', '-M', mode, '-c', String(connections), '-j', '2', ...args];
    if (warmupS > 0) await pgbench([...common, '-T', String(warmupS), url], env);
    const cpu = cpuWindow({ postmasterPid });
    // Read just before the end: pgbench's backends exit with it, and their CPU time goes with them.
    let usage;
    const reading = setTimeout(() => (usage = cpu()), durationS * 1000 - 300);
    const out = await pgbench([...common, '-T', String(durationS), '-l', '--log-prefix', join(dir, 'log'), url], env).finally(() => clearTimeout(reading));
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(out)?.[1]);
    if (!Number.isFinite(tps)) throw new Error(`pgbench: no tps in its output:\n${out}`);
    const latencies = [];
    for (const f of readdirSync(dir).filter((f) => f.startsWith('log'))) {
      for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
        const us = Number(line.split(' ')[2]);
        if (Number.isFinite(us) && line) latencies.push(us / 1000);
      }
    }
    latencies.sort((a, b) => a - b);
    const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
    return { tps, p50: pct(50), p99: pct(99), failed: Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0), cpu: usage, scripts: scripts.length, mode };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
