// BENCH_BEFORE=<commit>: the build of an earlier commit, run beside this one on the same database
// and dataset so that each write row is measured before and after a change in one run (the
// machine's drift between two runs is larger than most changes). Built once per commit in a cache
// outside the repository, as the upgrade suite builds its releases.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CACHE_DIR = join(tmpdir(), 'guildhall-bench-builds');
const BUILT_MARK = '.bench-build-done';

/** Runs `cmd` in `cwd`; on failure throws with the end of what it printed. */
function step(what, cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`BENCH_BEFORE: ${what} failed (${r.status ?? r.signal}):\n${`${r.stdout}${r.stderr}`.slice(-2000)}`);
}

/**
 * The build of `ref`, made unless the cache has it: `git archive | tar -x`, `npm ci`, `npm run
 * build`, in a directory beside the cache entry, renamed into it once built (an interrupted build
 * is never taken for one). Returns { commit, label, dir, main }.
 */
export function baselineBuild(root, ref, log) {
  const r = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`BENCH_BEFORE=${ref}: no such commit in ${root}`);
  const commit = r.stdout.trim();
  const label = execFileSync('git', ['rev-parse', '--short', commit], { cwd: root, encoding: 'utf8' }).trim();
  const dir = join(CACHE_DIR, commit);
  const built = { commit, label, dir, main: join(dir, 'dist/src/main.js') };
  if (existsSync(join(dir, BUILT_MARK))) {
    log(`BENCH_BEFORE: the build of ${label} from the cache (${dir})`);
    return built;
  }
  const work = `${dir}.partial-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const t0 = performance.now();
  log(`BENCH_BEFORE: building ${label} in ${work}`);
  step('git archive | tar -x', 'bash', ['-o', 'pipefail', '-c', 'git -C "$0" archive --format=tar "$1" | tar -x -C "$2"', root, commit, work], root);
  step('npm ci', 'npm', ['ci', '--no-audit', '--no-fund'], work);
  step('npm run build', 'npm', ['run', 'build'], work);
  writeFileSync(join(work, BUILT_MARK), `${commit}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(work, dir);
  log(`BENCH_BEFORE: built ${label} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return built;
}
