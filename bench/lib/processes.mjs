// Child processes and /proc readings for the benchmark suite: start, wait for, and stop the
// processes it runs, and read their memory and CPU time.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const log = (msg) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `node <args>`; keeps the tail of its output for error messages. */
export function startNode(name, args, { cwd, env }) {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk) => (tail = (tail + chunk.toString()).slice(-8000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { name, child, pid: child.pid, exited, tail: () => tail };
}

export function isRunning(proc) {
  return Boolean(proc) && proc.child.exitCode === null && proc.child.signalCode === null;
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export async function stopNode(proc, graceMs = 15_000) {
  if (!isRunning(proc)) return;
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), graceMs);
  await proc.exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers below 500; fails early when the process dies. */
export async function waitHttp(proc, url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isRunning(proc)) throw new Error(`${proc.name} exited during start-up:\n${proc.tail()}`);
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await r.arrayBuffer();
      if (r.status < 500) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${proc.name} did not answer ${url} within ${timeoutMs} ms:\n${proc.tail()}`);
}

/** A line of /proc/<pid>/status in MB (VmRSS, VmHWM); NaN when unreadable. */
export function procMb(pid, field = 'VmRSS') {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

const TICKS_PER_S = 100; // USER_HZ on Linux

function statFields(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds (user + system) of one process; NaN when unreadable. */
export function cpuSeconds(pid) {
  try {
    const f = statFields(pid);
    return (Number(f[11]) + Number(f[12])) / TICKS_PER_S;
  } catch {
    return NaN;
  }
}

/** CPU seconds of a process and its direct children (a postmaster and its backends), by pid. */
export function treeCpu(rootPid) {
  const out = new Map();
  if (!rootPid) return out;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const f = statFields(name);
      const pid = Number(name);
      if (pid === rootPid || Number(f[1]) === rootPid) out.set(pid, (Number(f[11]) + Number(f[12])) / TICKS_PER_S);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** CPU seconds a cluster (postmaster and backends) used since `before`, a treeCpu reading. */
const treeUsed = (before, rootPid) => {
  let used = 0;
  for (const [pid, s] of treeCpu(rootPid)) used += s - (before.get(pid) ?? 0);
  return used;
};

/**
 * CPU use over a window, in % of one core: the server, the Postgres cluster (postmaster and
 * backends, when its pid is known) and this process (the load generator); and a standby cluster's
 * when `standbyPid` (its postmaster) is given.
 */
export function cpuWindow({ serverPid, postmasterPid, standbyPid }) {
  const t0 = performance.now();
  const server0 = serverPid ? cpuSeconds(serverPid) : NaN;
  const pg0 = treeCpu(postmasterPid);
  const standby0 = treeCpu(standbyPid);
  const self0 = process.cpuUsage();
  return () => {
    const wall = (performance.now() - t0) / 1000;
    const pgUsed = treeUsed(pg0, postmasterPid);
    const self = process.cpuUsage(self0);
    return {
      server: serverPid ? ((cpuSeconds(serverPid) - server0) / wall) * 100 : NaN,
      postgres: postmasterPid ? (pgUsed / wall) * 100 : NaN,
      client: ((self.user + self.system) / 1e6 / wall) * 100,
      ...(standbyPid ? { standby: (treeUsed(standby0, standbyPid) / wall) * 100 } : {}),
    };
  };
}

export function loadAverage() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'n/a';
  }
}

export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
