import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../helpers/process';

/** A runnable build of the service: the working tree's dist/, or a commit's, built once in a cache. */
export interface Build {
  /** How the output names it: `1.0.0 (working tree)`, `0.0.0 (65e135e)`. */
  label: string;
  /** The full commit, or null for the working tree's build. */
  commit: string | null;
  /** The directory holding its package.json and dist/. */
  dir: string;
  /** Its package.json version. */
  release: string;
  main: string;
  cli: string;
  /** `guildhall migrate up` exists (1.0.0 and later); before it, a build migrates when it boots, whatever MIGRATE_ON_BOOT says. */
  hasMigrateCommand: boolean;
  /** METRICS_PORT exists, and with it svc_db_statement_errors_total. */
  hasMetricsPort: boolean;
  /** The build refuses a database with a migration of a newer release it may not run beside (schema_releases). */
  hasSchemaCheck: boolean;
  /** The steps taken to make it, each timed (empty when the cache had it). */
  steps: { step: string; ms: number }[];
  reused: boolean;
}

/**
 * Outside the repository: a cache inside it would be crawled by every jest configuration (each
 * cached tree has a package.json named guildhall and test files of its own) and by `tsc -p tsconfig.json`.
 */
export const CACHE_DIR = process.env.UPGRADE_CACHE_DIR || join(tmpdir(), 'guildhall-releases');
const BUILT_MARK = '.guildhall-release-built.json';

/** The working tree's dist/, as `npm run test:upgrade` has just built it. */
export function workingTreeBuild(): Build {
  const build = describeBuild(ROOT, null, [], true);
  if (!existsSync(build.main) || !existsSync(build.cli)) throw new Error(`${build.main} is missing: run \`npm run build\` first (npm run test:upgrade does it)`);
  return { ...build, label: `${build.release} (working tree)` };
}

/**
 * The build of `ref` (a commit the clone has), from the cache when it was made before, else made
 * there: `git archive | tar -x`, `npm ci`, `npm run build`, each step timed. `setting` names the
 * environment variable the ref came from, for the one-line refusal of an unknown commit.
 */
export async function commitBuild(ref: string, setting: string): Promise<Build> {
  const resolved = await run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], ROOT, 30_000);
  if (resolved.code !== 0) {
    throw new Error(`${setting}=${ref}: no such commit in ${ROOT}; the upgrade suite needs the full history (git fetch --unshallow)`);
  }
  const commit = resolved.stdout.trim();
  const dir = join(CACHE_DIR, commit);
  if (existsSync(join(dir, BUILT_MARK))) return describeBuild(dir, commit, [], true);

  mkdirSync(CACHE_DIR, { recursive: true });
  // Made beside the cache entry and renamed into it once built: an interrupted build is never taken for one.
  const work = `${dir}.partial-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const steps: { step: string; ms: number }[] = [];
  const step = async (name: string, cmd: string, args: string[], timeoutMs: number) => {
    const started = Date.now();
    const r = await run(cmd, args, work, timeoutMs);
    steps.push({ step: name, ms: Date.now() - started });
    if (r.code !== 0) {
      throw new Error(`building ${commit.slice(0, 7)}: \`${name}\` failed (exit ${r.code}) in ${work}:\n${(r.stdout + r.stderr).slice(-3000)}`);
    }
  };
  try {
    await step('git archive | tar -x', 'bash', ['-o', 'pipefail', '-c', 'git -C "$0" archive --format=tar "$1" | tar -x -C "$2"', ROOT, commit, work], 120_000);
    // The commit's own scripts decide how it builds; check that it has what this suite runs.
    const pkg = JSON.parse(readFileSync(join(work, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    if (!pkg.scripts?.build) throw new Error(`${setting}=${ref}: its package.json has no build script`);
    if (!existsSync(join(work, 'package-lock.json'))) throw new Error(`${setting}=${ref}: it has no package-lock.json for npm ci`);
    await step('npm ci', 'npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], 900_000);
    await step(`npm run build (${pkg.scripts.build})`, 'npm', ['run', 'build'], 900_000);
    writeFileSync(join(work, BUILT_MARK), JSON.stringify({ commit, steps }, null, 2));
    try {
      renameSync(work, dir);
    } catch {
      // Another run built it meanwhile: theirs is as good.
      rmSync(work, { recursive: true, force: true });
    }
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    throw err;
  }
  return describeBuild(dir, commit, steps, false);
}

function describeBuild(dir: string, commit: string | null, steps: { step: string; ms: number }[], reused: boolean): Build {
  const release = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  const dist = join(dir, 'dist/src');
  const settings = existsSync(join(dist, 'config/settings.js')) ? readFileSync(join(dist, 'config/settings.js'), 'utf8') : '';
  return {
    label: `${release} (${commit ? commit.slice(0, 7) : 'working tree'})`,
    commit,
    dir,
    release,
    main: join(dist, 'main.js'),
    cli: join(dist, 'cli.js'),
    hasMigrateCommand: existsSync(join(dist, 'operator/migrate-commands.js')),
    hasMetricsPort: settings.includes("'METRICS_PORT'"),
    hasSchemaCheck: existsSync(join(dist, 'db/schema/schema-state.js')),
    steps,
    reused,
  };
}

/**
 * Runs a program to completion, bounded. The environment is this process's without npm's own
 * variables: `npm run test:upgrade` sets npm_config_* and friends, which a nested `npm ci` in
 * another tree would take as its own configuration; NODE_ENV (jest sets `test`) is left out too.
 */
function run(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'NODE_ENV' && k !== 'INIT_CWD') env[k] = v;
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const cap = (s: string) => (s.length > 200_000 ? s.slice(-100_000) : s);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = cap(stdout + d)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = cap(stderr + d)));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: `${stderr}\n${e.message}` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
