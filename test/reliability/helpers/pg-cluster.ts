import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync, readFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { serverAccount, type Account } from '../../../src/db/embedded/account';
import { binariesFor } from '../../../src/db/embedded/binaries';
import { runToEnd } from '../../../src/db/embedded/postgres-process';
import { freePort } from '../../helpers/process';

/**
 * Real PostgreSQL clusters for the backup and restore cases: the system's PostgreSQL 15 programs
 * (Debian's postgresql-15, which scripts/postgres-tools.sh installs when missing) or the embedded 18
 * build, each cluster in a folder of its own on a loopback port, run as the `postgres` account when
 * the tests run as root. Trust authentication: they listen on 127.0.0.1 only and live for one case.
 */
export const PG15_BIN = '/usr/lib/postgresql/15/bin';

export type Build = 'pg15' | 'embedded';

/** The folder of a build's programs; the system build must be installed (no silent skip). */
export function binDir(build: Build): string {
  if (build === 'embedded') return join(binariesFor(serverAccount()).root, 'bin');
  for (const program of ['initdb', 'pg_ctl', 'pg_dump', 'pg_restore', 'pg_basebackup']) {
    if (!existsSync(join(PG15_BIN, program))) {
      throw new Error(`${join(PG15_BIN, program)} is missing: run scripts/postgres-tools.sh (it installs Debian's postgresql-15)`);
    }
  }
  return PG15_BIN;
}

/** A scratch folder every account can traverse, removed by `removeScratch`. */
export function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'guildhall-restore-'));
  chmodSync(dir, 0o755);
  return dir;
}

export function removeScratch(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A folder owned by the server account (the clusters, the WAL archive, a base backup). */
export function serverFolder(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const account = serverAccount();
  if (account) chownSync(path, account.uid, account.gid);
  return path;
}

/** Runs a PostgreSQL program to its end; a non-zero exit throws with its output. */
export async function run(build: Build, program: string, args: string[], as: 'server' | 'me' = 'me'): Promise<string> {
  const account: Account | undefined = as === 'server' ? serverAccount() : undefined;
  const { code, output } = await runToEnd(join(binDir(build), program), args, account);
  if (code !== 0) throw new Error(`${program} ${args.join(' ')} exited with ${code}:\n${output}`);
  return output;
}

export interface Cluster {
  build: Build;
  dir: string;
  port: number;
  url(database?: string): string;
  /** One statement on a short-lived connection. */
  sql<R = Record<string, unknown>>(database: string, text: string, params?: unknown[]): Promise<R[]>;
  start(): Promise<void>;
  /** `immediate` is a crash as far as the cluster can tell: no checkpoint, recovery at the next start. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
}

/** Settings a cluster's postgresql.conf gets beyond the defaults. */
export type Settings = Record<string, string>;

/** A new cluster (initdb) in `dir`, not started. */
export async function initCluster(build: Build, dir: string, settings: Settings = {}): Promise<Cluster> {
  serverFolder(dir);
  await run(build, 'initdb', [`--pgdata=${dir}`, '--auth=trust', '--username=postgres', '--encoding=UTF8', '--locale=C', '--no-sync'], 'server');
  return clusterAt(build, dir, await freePort(), settings);
}

/**
 * A cluster whose files are already in `dir` (a restored base backup): the settings are appended
 * to its postgresql.conf, and it listens on `port`.
 */
export function clusterAt(build: Build, dir: string, port: number, settings: Settings = {}): Cluster {
  const conf = {
    listen_addresses: "'127.0.0.1'",
    port: String(port),
    unix_socket_directories: "''",
    fsync: 'off',
    max_connections: '100',
    lc_messages: "'C'",
    ...settings,
  };
  appendFileSync(join(dir, 'postgresql.conf'), `\n${Object.entries(conf).map(([k, v]) => `${k} = ${v}`).join('\n')}\n`);
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const log = join(dir, 'server.log');
  return {
    build,
    dir,
    port,
    url,
    sql: async <R>(database: string, text: string, params: unknown[] = []) => {
      const c = new Client({ connectionString: url(database) });
      await c.connect();
      try {
        return (await c.query(text, params)).rows as R[];
      } finally {
        await c.end();
      }
    },
    start: async () => {
      await run(build, 'pg_ctl', ['-D', dir, '-l', log, '-w', '-t', '120', 'start'], 'server').catch((err: Error) => {
        throw new Error(`${err.message}\n${existsSync(log) ? readFileSync(log, 'utf8').slice(-4000) : ''}`);
      });
    },
    stop: async (mode = 'fast') => {
      if (!existsSync(join(dir, 'postmaster.pid'))) return;
      await run(build, 'pg_ctl', ['-D', dir, '-m', mode, '-w', '-t', '60', 'stop'], 'server');
    },
  };
}

/** Marks a restored base backup for point-in-time recovery: replay from `archive` up to `targetTime`, then promote. */
export function requestRecovery(dir: string, archive: string, targetTime: string): void {
  appendFileSync(
    join(dir, 'postgresql.conf'),
    `\nrestore_command = 'cp ${archive}/%f %p'\nrecovery_target_time = '${targetTime}'\nrecovery_target_action = 'promote'\narchive_mode = off\n`,
  );
  writeFileSync(join(dir, 'recovery.signal'), '');
  const account = serverAccount();
  if (account) chownSync(join(dir, 'recovery.signal'), account.uid, account.gid);
}
