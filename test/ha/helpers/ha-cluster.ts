import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ROOT, sleep, TEST_ADMIN_TOKEN } from '../../helpers/process';

/**
 * The reference deployment of deploy/ha (etcd, three Patroni nodes, HAProxy, two instances) for
 * one suite, driven through deploy/ha/ha.sh itself, so the launcher the docs describe is the one
 * tested. Everything lives in a temporary folder that `destroy` removes with every process.
 */
const HA_SH = join(ROOT, 'deploy/ha/ha.sh');

/** The port offsets ha.sh uses from its first port (see its header). */
const OFFSETS = [0, 1, 11, 12, 13, 21, 22, 23, 30, 31, 32, 41, 42];

export interface Member {
  name: string;
  role: 'leader' | 'replica' | 'sync_standby' | string;
  state: string;
  timeline?: number;
}

export interface HaCluster {
  base: string;
  info: Record<string, string>;
  instances: [string, string];
  /** The service's database, as the superuser, through HAProxy's primary port. */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  members(): Promise<Member[]>;
  leader(): Promise<Member | undefined>;
  /** The postmaster pid of `node` (postmaster.pid's first line). */
  postmasterPid(node: string): number;
  patronictl(...args: string[]): Promise<string>;
  /** Until one leader, a synchronous standby and three running members (a rejoined old primary too). */
  waitHealthy(timeoutMs: number): Promise<Member[]>;
  logs(name: string): string;
  destroy(): Promise<void>;
}

function run(args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(HA_SH, args, { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`ha.sh ${args.join(' ')}: ${err.message}\n${stdout}\n${stderr}`.slice(0, 20_000)));
      else resolve(stdout);
    });
  });
}

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/** A first port whose whole range is free (other suites run on this machine too). */
async function freeRange(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * 2_000) * 10;
    let free = true;
    for (const o of OFFSETS) if (!(await portFree(first + o))) free = false;
    if (free) return first;
  }
  throw new Error('no free range of 43 ports found for the HA deployment');
}

/** Starts the deployment (about 25 s); on a failed start everything started is stopped again. */
export async function startHa(guildhallEnv: Record<string, string>): Promise<HaCluster> {
  const base = mkdtempSync(join(tmpdir(), 'guildhall-ha-'));
  chmodSync(base, 0o755);
  const envFile = join(base, 'extra.env');
  writeFileSync(envFile, Object.entries(guildhallEnv).map(([k, v]) => `${k}=${v}\n`).join(''));
  const destroy = async () => {
    await run(['destroy', '--base', base], 120_000).catch((err) => process.stderr.write(`${(err as Error).message}\n`));
    rmSync(base, { recursive: true, force: true });
  };
  let info: Record<string, string>;
  try {
    const out = await run(['start', '--base', base, '--port', String(await freeRange()), '--guildhall-env', envFile], 240_000, {
      ...process.env,
      SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    });
    info = Object.fromEntries(
      out
        .split('\n')
        .filter((l) => /^[A-Z0-9_]+=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
  } catch (err) {
    await destroy();
    throw err;
  }
  const rest = [info.NODE1_REST_URL, info.NODE2_REST_URL, info.NODE3_REST_URL];
  const members = async (): Promise<Member[]> => {
    for (const url of rest) {
      try {
        const res = await fetch(`${url}/cluster`, { signal: AbortSignal.timeout(2_000) });
        if (res.ok) return ((await res.json()) as { members: Member[] }).members;
      } catch {
        // That node's Patroni is down or busy: ask the next one.
      }
    }
    return [];
  };
  const cluster: HaCluster = {
    base,
    info,
    instances: [info.GUILDHALL1_URL, info.GUILDHALL2_URL],
    sql: async <R>(text: string, params: unknown[] = []) => {
      const c = new Client({ connectionString: info.GUILDHALL_DATABASE_URL, connectionTimeoutMillis: 5_000 });
      await c.connect();
      try {
        return (await c.query(text, params)).rows as R[];
      } finally {
        await c.end();
      }
    },
    members,
    leader: async () => (await members()).find((m) => m.role === 'leader'),
    postmasterPid: (node) => Number(readFileSync(join(base, 'data', node, 'postmaster.pid'), 'utf8').split('\n')[0]),
    patronictl: (...args) => run(['patronictl', '--base', base, '--', ...args], 60_000),
    waitHealthy: async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const ms = await members();
        const ok =
          ms.length === 3 &&
          ms.every((m) => m.state === 'running' || m.state === 'streaming') &&
          ms.some((m) => m.role === 'leader') &&
          ms.some((m) => m.role === 'sync_standby');
        if (ok) return ms;
        if (Date.now() > deadline) throw new Error(`the cluster is not healthy after ${timeoutMs} ms: ${JSON.stringify(ms)}`);
        await sleep(500);
      }
    },
    logs: (name) => {
      try {
        return readFileSync(join(base, 'log', `${name}.log`), 'utf8');
      } catch {
        return '';
      }
    },
    destroy,
  };
  return cluster;
}
