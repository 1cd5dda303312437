import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { canReach, type Account } from './account';

/** Names the relocated cluster of a data folder that the server account cannot reach. */
export const LOCATION_FILE = 'pg-location';

/**
 * Where the cluster of `dataDir` lives: `dataDir/pg`, unless the server account (root's
 * `postgres`) cannot search its way into `dataDir` (a clone under /root or in a 0700 temp dir).
 * Then the cluster lives in a folder of its own under /var/lib/guildhall/clusters, and
 * `dataDir/pg-location` names it: restarts find it, and deleting the data folder starts afresh.
 */
export function clusterLocation(dataDir: string, account: Account | undefined): string {
  const local = join(dataDir, 'pg');
  const locationFile = join(dataDir, LOCATION_FILE);
  if (existsSync(locationFile)) {
    const kept = readFileSync(locationFile, 'utf8').trim();
    if (isAbsolute(kept)) return kept;
  }
  if (!account || existsSync(join(local, 'PG_VERSION')) || canReach(dataDir, account, 1)) return local;

  const base = join(existsSync('/var/lib') ? '/var/lib/guildhall' : join(tmpdir(), 'guildhall'), 'clusters');
  mkdirSync(base, { recursive: true, mode: 0o755 });
  sweepAbandoned(base);
  const relocated = join(base, randomBytes(8).toString('hex'));
  writeFileSync(`${relocated}.origin`, `${locationFile}\n`);
  writeFileSync(locationFile, `${relocated}\n`);
  return relocated;
}

/**
 * Removes relocated clusters whose data folder was deleted (the documented way to start from
 * scratch) or now names another cluster. A cluster whose server is still running is left alone.
 */
function sweepAbandoned(base: string): void {
  for (const entry of readdirSync(base)) {
    if (!entry.endsWith('.origin')) continue;
    const cluster = join(base, entry.slice(0, -'.origin'.length));
    const origin = readFileSync(join(base, entry), 'utf8').trim();
    const claimed = existsSync(origin) && readFileSync(origin, 'utf8').trim() === cluster;
    if (claimed || existsSync(join(cluster, 'postmaster.pid'))) continue;
    rmSync(cluster, { recursive: true, force: true });
    rmSync(join(base, entry), { force: true });
  }
}
