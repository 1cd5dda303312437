import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { sleep } from '../../helpers/process';
import type { HaCluster, Role } from './ha-cluster';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const AS_POSTGRES = ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', '--'];

/**
 * A base backup of the cluster as an operator takes one on a node's host: pg_basebackup from the
 * current primary over the replication account (pg_hba admits the nodes for it), WAL included.
 */
export async function baseBackup(c: HaCluster, onHost: Role, primaryAddress: string, into: string): Promise<void> {
  mkdirSync(into, { recursive: true });
  await c.exec(onHost, ['chown', 'postgres:postgres', into]);
  await c.exec(
    onHost,
    [...AS_POSTGRES, `${PG_BIN}/pg_basebackup`, '-h', primaryAddress, '-U', 'replicator', '-D', into, '-X', 'stream', '-c', 'fast', '--no-password'],
    { ...process.env, PGPASSWORD: c.secret('PG_REPLICATION_PASSWORD') },
  );
}

/**
 * Recovers a copy of `backup` to `target` (a timestamptz) from the WAL archive alone, on the
 * test's own host (a private socket, no TCP), and answers `query`'s rows once recovery has ended
 * and the copy is promoted, with the timeline it chose and where it stopped (from its log).
 */
export async function recoverTo<R>(
  c: HaCluster,
  backup: string,
  into: string,
  target: string,
  database: string,
  query: string,
): Promise<{ rows: R[]; newTimeline: number; stopped: string }> {
  rmSync(into, { recursive: true, force: true });
  cpSync(backup, into, { recursive: true });
  // PostgreSQL refuses a data folder others may read.
  chmodSync(into, 0o700);
  for (const f of ['postmaster.pid', 'standby.signal']) rmSync(join(into, f), { force: true });
  writeFileSync(join(into, 'recovery.signal'), '');
  const socketDir = join(into, 'socket');
  mkdirSync(socketDir);
  // The node's own settings (its address, archiving, synchronous standby, log folder) give way to
  // a private recovery: ALTER SYSTEM's file is read last.
  appendFileSync(
    join(into, 'postgresql.auto.conf'),
    [
      `restore_command = 'cp ${c.walArchive}/%f %p'`,
      `recovery_target_time = '${target}'`,
      "recovery_target_timeline = 'latest'",
      "recovery_target_action = 'promote'",
      "listen_addresses = ''",
      `unix_socket_directories = '${socketDir}'`,
      'port = 5432',
      "archive_mode = 'off'",
      "synchronous_standby_names = ''",
      "primary_conninfo = ''",
      `hba_file = '${join(into, 'pg_hba.conf')}'`,
      `ident_file = '${join(into, 'pg_ident.conf')}'`,
      "logging_collector = 'off'",
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve, reject) =>
    spawn('chown', ['-R', 'postgres:postgres', into]).once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`chown: ${code}`)))),
  );
  let log = '';
  const server = spawn(AS_POSTGRES[0], [...AS_POSTGRES.slice(1), `${PG_BIN}/postgres`, '-D', into], { stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  server.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((r) => server.once('exit', () => r()));
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`the recovered copy stopped:\n${log.slice(-4000)}`);
      const client = new Client({ host: socketDir, port: 5432, user: 'postgres', database, connectionTimeoutMillis: 2_000 });
      try {
        await client.connect();
        const [{ recovering }] = (await client.query('SELECT pg_is_in_recovery() AS recovering')).rows as { recovering: boolean }[];
        if (!recovering) {
          const rows = (await client.query(query)).rows as R[];
          return {
            rows,
            newTimeline: Number(/selected new timeline ID: (\d+)/.exec(log)?.[1] ?? 0),
            stopped: /recovery stopping [^\n]*/.exec(log)?.[0] ?? '',
          };
        }
      } catch {
        // Not accepting connections yet, or still replaying.
      } finally {
        await client.end().catch(() => undefined);
      }
      if (Date.now() > deadline) throw new Error(`recovery did not end within 120 s:\n${log.slice(-4000)}`);
      await sleep(500);
    }
  } finally {
    server.kill('SIGINT');
    await Promise.race([exited, sleep(20_000)]);
    server.kill('SIGKILL');
    if (existsSync(into)) rmSync(into, { recursive: true, force: true });
  }
}
