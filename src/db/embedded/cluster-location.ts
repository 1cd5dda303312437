import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  const relocated = join(base, randomBytes(8).toString('hex'));
  writeFileSync(locationFile, `${relocated}\n`);
  return relocated;
}
