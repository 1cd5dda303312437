import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { StartupError } from '../../common/startup-error';
import type { Account } from './account';

/** The locale new clusters get: a UTF-8 one when the system has it, else C. */
export function bestLocale(): string {
  try {
    const have = new Set(execFileSync('locale', ['-a'], { encoding: 'utf8' }).split(/\r?\n/).map((l) => l.trim()));
    for (const l of ['en_US.UTF-8', 'en_US.utf8', 'C.UTF-8', 'C.utf8']) if (have.has(l)) return l;
  } catch {
    // No `locale` program: C is always there.
  }
  return 'C';
}

/** The first FATAL/PANIC/ERROR line of a PostgreSQL program's output, without its prefix noise. */
export function firstFatal(output: string): string | undefined {
  const line = output.split('\n').find((l) => /\b(FATAL|PANIC|ERROR):|^initdb: error:/.test(l));
  return line?.replace(/^.*?\b(FATAL|PANIC|ERROR):\s*/, '').replace(/^initdb: error:\s*/, '').trim();
}

/** Starts a PostgreSQL program as `account` (when given), its messages in English on piped output. */
export function spawnProgram(file: string, args: string[], account: Account | undefined): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(file, args, { ...(account ?? {}), env: { ...process.env, LC_MESSAGES: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs a program to its end (as `account` when given) and returns its exit code and output. */
export function runToEnd(file: string, args: string[], account: Account | undefined): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnProgram(file, args, account);
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-16_384));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', (err) => reject(new StartupError(`the embedded PostgreSQL could not be run (${file}): ${err.message}`)));
    child.once('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether that pid is a PostgreSQL of this cluster, not an unrelated process that reused the pid. */
function serves(pid: number, clusterDir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(clusterDir);
  } catch {
    // No /proc (or not ours to read): leave it to PostgreSQL's own stale-lock check.
    return false;
  }
}

/**
 * A launcher that was killed outright leaves its PostgreSQL running, holding the cluster. The
 * next start asks that server to shut down (fast shutdown: committed data is kept) and waits.
 */
export async function stopOrphan(clusterDir: string, timeoutMs = 20_000): Promise<void> {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !alive(pid) || !serves(pid, clusterDir)) return;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    throw new StartupError(
      `another PostgreSQL (pid ${pid}) is using ${clusterDir} and cannot be stopped from here: stop it, then start again`,
    );
  }
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      throw new StartupError(`the PostgreSQL left running on ${clusterDir} (pid ${pid}) did not stop within ${timeoutMs / 1000} s: stop it, then start again`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
