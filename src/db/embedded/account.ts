import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, resolve } from 'node:path';
import { StartupError } from '../../common/startup-error';

/** The system account the embedded server runs as: PostgreSQL refuses to run as root. */
export interface Account {
  uid: number;
  gid: number;
}

/** The `postgres` account when this process is root (created when missing); none otherwise. */
export function serverAccount(): Account | undefined {
  if (userInfo().uid !== 0) return undefined;
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  });
  try {
    return ids();
  } catch {
    // Missing: create a system account with no home and no login.
  }
  try {
    execFileSync('sh', ['-c', 'groupadd -f -r postgres && useradd -r -g postgres -M -s /usr/sbin/nologin postgres'], {
      stdio: 'ignore',
    });
    return ids();
  } catch {
    throw new StartupError(
      'running as root, the embedded PostgreSQL needs a "postgres" system account and it could not be created ' +
        '(no groupadd/useradd here): create one, run as a normal user, or set DATABASE_URL to your own PostgreSQL',
    );
  }
}

/** Permission bits that apply to `account` on a file: owner, group or other. */
function bitsFor(path: string, account: Account): number {
  const st = statSync(path);
  if (st.uid === account.uid) return (st.mode >> 6) & 7;
  if (st.gid === account.gid) return (st.mode >> 3) & 7;
  return st.mode & 7;
}

/**
 * Whether `account` can walk down to `path` (search permission on every ancestor) and has
 * `need` (an rwx mask) on the path itself. Supplementary groups are not considered: a false
 * "no" only costs a relocation, a false "yes" would cost the start.
 */
export function canReach(path: string, account: Account, need: number): boolean {
  const target = resolve(path);
  try {
    for (let dir = dirname(target); ; dir = dirname(dir)) {
      if ((bitsFor(dir, account) & 1) === 0) return false;
      if (dir === dirname(dir)) break;
    }
    return (bitsFor(target, account) & need) === need;
  } catch {
    return false;
  }
}
