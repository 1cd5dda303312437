import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ROOT, sleep, TEST_ADMIN_TOKEN } from '../../helpers/process';
import { createNetwork, type Network } from './netns';

/**
 * The reference deployment of deploy/ha on nine hosts (three etcd members, three Patroni nodes,
 * HAProxy, two instances), each a network namespace of its own, driven through deploy/ha/ha.sh
 * itself: `render` from a cluster file of the hosts' addresses, `run ROLE` in each host's
 * namespace (the pid the test keeps is the program's), `bootstrap` and `check` from the root
 * namespace as the admin host. Everything lives in a temporary folder removed with the namespaces.
 */
const HA_SH = join(ROOT, 'deploy/ha/ha.sh');
export const ROLES = ['etcd1', 'etcd2', 'etcd3', 'node1', 'node2', 'node3', 'haproxy', 'guildhall1', 'guildhall2'] as const;
export type Role = (typeof ROLES)[number];
export const NODES = ['node1', 'node2', 'node3'] as const;
export const ETCDS = ['etcd1', 'etcd2', 'etcd3'] as const;
const GUILDHALL_PORT = 8787;
const PATRONI_PORT = 8008;

export interface Member {
  name: string;
  role: 'leader' | 'replica' | 'sync_standby' | string;
  state: string;
  timeline?: number;
  lag?: number | string;
}

export interface HaCluster {
  base: string;
  net: Network;
  walArchive: string;
  instances: [string, string];
  /** host:port of every Patroni REST API, etcd member and HAProxy's metrics, for Prometheus. */
  scrapeTargets: { patroni: string[]; etcd: string[]; haproxy: string[] };
  /** The service's database, as the superuser, through HAProxy's primary port. */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[], database?: string): Promise<R[]>;
  members(): Promise<Member[]>;
  leader(): Promise<Member | undefined>;
  /** The postmaster pid of `node` (postmaster.pid's first line). */
  postmasterPid(node: string): number;
  pgLog(node: string): string;
  patronictl(...args: string[]): Promise<string>;
  /** Until one leader, a synchronous standby and three members streaming (a rejoined old primary too). */
  waitHealthy(timeoutMs: number): Promise<Member[]>;
  /** ha.sh check's output; rejects when a check fails. */
  check(): Promise<string>;
  /** Runs `command` in `host`'s namespace (as `ip netns exec` does for an operator on that host). */
  exec(host: Role, command: string[], env?: NodeJS.ProcessEnv): Promise<string>;
  secret(name: string): string;
  logs(role: Role): string;
  destroy(): Promise<void>;
}

function run(command: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(' ')}: ${err.message}\n${stdout}\n${stderr}`.slice(0, 20_000)));
      else resolve(stdout);
    });
  });
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, logs: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${logs()}`);
    await sleep(300);
  }
}

const ok = async (url: string) => ((await fetch(url, { signal: AbortSignal.timeout(2_000) })).status === 200 ? true : undefined);

/** Starts the deployment host by host in the order the docs give; on a failed start everything is removed again. */
export async function startHa(guildhallEnv: Record<string, string>): Promise<HaCluster> {
  const net = createNetwork([...ROLES]);
  const h = net.hosts as Record<Role, string>;
  const base = mkdtempSync(join(tmpdir(), 'guildhall-ha-'));
  // The server account walks into the data folders below it.
  chmodSync(base, 0o755);
  const dir = join(base, 'conf');
  const data = join(base, 'data');
  const walArchive = join(base, 'wal-archive');
  const clusterFile = join(base, 'cluster.env');
  writeFileSync(
    clusterFile,
    [...ROLES.map((r) => `${r.toUpperCase()}_HOST=${h[r]}`), `DATA_DIR=${data}`, `WAL_ARCHIVE=${walArchive}`, ''].join('\n'),
  );
  const envFile = join(base, 'extra.env');
  writeFileSync(envFile, Object.entries(guildhallEnv).map(([k, v]) => `${k}=${v}\n`).join(''));

  const children = new Map<Role, ChildProcess>();
  const logFile = (role: Role) => join(base, `${role}.log`);
  const logs = (role: Role) => {
    try {
      return readFileSync(logFile(role), 'utf8');
    } catch {
      return '';
    }
  };
  // A node's last 40 lines reach back over a bootstrap's initdb and first start (a stalled one failed CI once).
  const tails = () => ROLES.map((r) => `== ${r}\n${logs(r).split('\n').slice((NODES as readonly string[]).includes(r) ? -40 : -15).join('\n')}`).join('\n');
  const launch = (role: Role) => {
    const fd = openSync(logFile(role), 'a');
    const child = spawn('ip', ['netns', 'exec', net.namespace(role), HA_SH, 'run', role, '--dir', dir], { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    children.set(role, child);
  };
  const stopAll = async () => {
    // Instances first (their drain), then HAProxy, the nodes (Patroni stops its PostgreSQL), etcd last.
    for (const group of [['guildhall1', 'guildhall2'], ['haproxy'], [...NODES], [...ETCDS]] as Role[][]) {
      await Promise.all(
        group.map(async (role) => {
          const child = children.get(role);
          if (!child || child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          await Promise.race([exited, sleep(20_000)]);
          child.kill('SIGKILL');
        }),
      );
    }
  };
  const destroy = async () => {
    await stopAll().catch((err) => process.stderr.write(`${(err as Error).message}\n`));
    try {
      // What outlived its parent (a postmaster) dies with its namespace.
      net.destroy();
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  };
  const killOnExit = () => {
    for (const child of children.values()) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const secrets = () =>
    Object.fromEntries(
      readFileSync(join(dir, 'secrets.env'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    ) as Record<string, string>;
  const rest = NODES.map((n) => `http://${h[n]}:${PATRONI_PORT}`);
  const members = async (): Promise<Member[]> => {
    for (const url of rest) {
      try {
        const res = await fetch(`${url}/cluster`, { signal: AbortSignal.timeout(2_000) });
        if (res.ok) return ((await res.json()) as { members: Member[] }).members;
      } catch {
        // That node's Patroni is down, busy or cut off: ask the next one.
      }
    }
    return [];
  };
  const healthy = async () => {
    const ms = await members();
    const good =
      ms.length === 3 &&
      ms.every((m) => m.state === 'running' || m.state === 'streaming') &&
      ms.filter((m) => m.role === 'leader').length === 1 &&
      ms.some((m) => m.role === 'sync_standby');
    return good ? ms : undefined;
  };
  const haSh = ([command, ...rest]: string[], timeoutMs: number) => run(HA_SH, [command, '--dir', dir, ...rest], timeoutMs);

  try {
    await run(HA_SH, ['render', '--cluster', clusterFile, '--out', dir, '--guildhall-env', envFile], 30_000, { ...process.env, SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    // etcd's members find each other at their first start: all three together.
    for (const e of ETCDS) launch(e);
    for (const e of ETCDS) await until(`${e} healthy`, 60_000, () => ok(`http://${h[e]}:2379/health`), tails);
    // The first node bootstraps the cluster; the others copy it (pg_basebackup) once it is up.
    launch('node1');
    await until('node1 the primary', 90_000, () => ok(`http://${h.node1}:${PATRONI_PORT}/primary`), tails);
    launch('node2');
    launch('node3');
    await until('three nodes with a synchronous standby', 120_000, healthy, tails);
    launch('haproxy');
    await haSh(['bootstrap'], 120_000);
    // The first instance applies the migrations; the second starts once they are in.
    for (const g of ['guildhall1', 'guildhall2'] as const) {
      launch(g);
      await until(`${g} /healthz`, 120_000, () => ok(`http://${h[g]}:${GUILDHALL_PORT}/healthz`), tails);
    }
  } catch (err) {
    await destroy();
    process.removeListener('exit', killOnExit);
    throw err;
  }

  const cluster: HaCluster = {
    base,
    net,
    walArchive,
    instances: [`http://${h.guildhall1}:${GUILDHALL_PORT}`, `http://${h.guildhall2}:${GUILDHALL_PORT}`],
    scrapeTargets: {
      patroni: NODES.map((n) => `${h[n]}:${PATRONI_PORT}`),
      etcd: ETCDS.map((e) => `${h[e]}:2379`),
      haproxy: [`${h.haproxy}:8404`],
    },
    sql: async <R>(text: string, params: unknown[] = [], database = 'guildhall') => {
      const c = new Client({
        host: h.haproxy,
        port: 5000,
        user: 'postgres',
        password: secrets().PG_SUPERUSER_PASSWORD,
        database,
        connectionTimeoutMillis: 5_000,
      });
      await c.connect();
      try {
        return (await c.query(text, params)).rows as R[];
      } finally {
        await c.end();
      }
    },
    members,
    leader: async () => (await members()).find((m) => m.role === 'leader'),
    postmasterPid: (node) => Number(readFileSync(join(data, node, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]),
    pgLog: (node) => {
      const folder = join(data, node, 'log');
      return readdirSync(folder)
        .filter((f) => f.endsWith('.log'))
        .map((f) => readFileSync(join(folder, f), 'utf8'))
        .join('');
    },
    patronictl: (...args) => haSh(['patronictl', '--', ...args], 90_000),
    waitHealthy: (timeoutMs) => until('a healthy cluster', timeoutMs, healthy, tails),
    check: () => haSh(['check'], 30_000),
    exec: (host, command, env) => run('ip', ['netns', 'exec', net.namespace(host), ...command], 300_000, env ?? process.env),
    secret: (name) => secrets()[name],
    logs,
    destroy: async () => {
      process.removeListener('exit', killOnExit);
      await destroy();
    },
  };
  return cluster;
}
