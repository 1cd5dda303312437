import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join, relative, resolve } from 'node:path';

/**
 * Helpers for e2e tests that run the BUILT service (dist/) as separate processes: spawn with an
 * environment built from scratch, wait with a bound, and kill whatever is still running.
 */
export const ROOT = resolve(__dirname, '../..');
export const MAIN_JS = join(ROOT, 'dist/src/main.js');
export const CLI_JS = join(ROOT, 'dist/src/cli.js');
export const DEV_JS = join(ROOT, 'dist/src/dev.js');

export const TEST_ADMIN_TOKEN = 'jadm_e2e_process_0123456789abcdef';

/** Fails early, with a readable reason, when `npm run build` has not been run. */
export function requireBuild(): void {
  for (const f of [MAIN_JS, CLI_JS, DEV_JS]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run \`npm run build\` first (npm test does it)`);
  }
}

/**
 * An environment from scratch: PATH and HOME of the test runner plus `vars` (undefined values
 * are left out). Nothing else leaks in, DATABASE_URL in particular.
 */
export function cleanEnv(vars: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  if (process.env.PATH) env.PATH = process.env.PATH;
  if (process.env.HOME) env.HOME = process.env.HOME;
  for (const [k, v] of Object.entries(vars)) if (v !== undefined) env[k] = v;
  return env;
}

/** A server environment that starts quietly on `port` with `databaseUrl`. */
export function serverEnv(
  databaseUrl: string | undefined,
  port: number,
  extra: Record<string, string | undefined> = {},
): NodeJS.ProcessEnv {
  return cleanEnv({
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    RATE_LIMIT_PER_MINUTE: '0',
    ...extra,
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Proc {
  child: ChildProcess;
  readonly pid: number;
  stdout(): string;
  stderr(): string;
  /** Settles once the process has exited (never rejects). */
  readonly exited: Promise<Exit>;
  /** The exit once it happened, else null. */
  exit(): Exit | null;
  /** Waits for the exit, at most `timeoutMs`; rejects with the output so far when it takes longer. */
  waitForExit(timeoutMs: number): Promise<Exit>;
  /** Waits until stdout (or stderr) matches, at most `timeoutMs`; rejects early when the process exits. */
  waitForOutput(pattern: RegExp, timeoutMs: number, stream?: 'stdout' | 'stderr'): Promise<RegExpMatchArray>;
  /** Sends SIGKILL unless already gone, and waits (bounded) for the exit. */
  kill(): Promise<void>;
  describe(): string;
}

const running = new Set<Proc>();

/** Spawns `node <script> ...args` with exactly `env`. Every spawned process is tracked for `killAll`. */
export function spawnNode(script: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): Proc {
  const child = spawn(process.execPath, [script, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let exitInfo: Exit | null = null;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    notify();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    notify();
  });
  const exited = new Promise<Exit>((res) => {
    // 'close' fires after the exit AND the end of both output streams: the output is complete then.
    child.once('close', (code, signal) => {
      exitInfo = { code, signal };
      running.delete(proc);
      notify();
      res(exitInfo);
    });
    child.once('error', (e) => {
      err += `\n[spawn error] ${e.message}`;
      exitInfo = { code: -1, signal: null };
      running.delete(proc);
      notify();
      res(exitInfo);
    });
  });

  const describe = () =>
    `${script.replace(ROOT + '/', '')} ${args.join(' ')} (pid ${child.pid}, exit ${JSON.stringify(exitInfo)})\n` +
    `--- stdout ---\n${out.slice(-4000)}\n--- stderr ---\n${err.slice(-4000)}`;

  const proc: Proc = {
    child,
    pid: child.pid ?? -1,
    stdout: () => out,
    stderr: () => err,
    exited,
    exit: () => exitInfo,
    describe,
    waitForExit: (timeoutMs) => withTimeout(exited, timeoutMs, () => `process did not exit within ${timeoutMs} ms: ${describe()}`),
    waitForOutput: (pattern, timeoutMs, stream = 'stdout') =>
      new Promise<RegExpMatchArray>((res, rej) => {
        const check = () => {
          const m = (stream === 'stdout' ? out : err).match(pattern);
          if (m) return done(() => res(m));
          if (exitInfo) return done(() => rej(new Error(`process exited before printing ${pattern}: ${describe()}`)));
        };
        const timer = setTimeout(
          () => done(() => rej(new Error(`no ${pattern} within ${timeoutMs} ms: ${describe()}`))),
          timeoutMs,
        );
        const done = (f: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          f();
        };
        listeners.add(check);
        check();
      }),
    kill: async () => {
      if (exitInfo) return;
      child.kill('SIGKILL');
      await withTimeout(exited, 5_000, () => `pid ${child.pid} survived SIGKILL`).catch(() => undefined);
    },
  };
  running.add(proc);
  return proc;
}

/** Kills every process spawned by this file that is still running; for afterEach/afterAll. */
export async function killAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill()));
}

/** Runs a command to completion (bounded) and returns its outcome. */
export async function runNode(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 15_000,
): Promise<Exit & { stdout: string; stderr: string; proc: Proc }> {
  const proc = spawnNode(script, args, env);
  try {
    const exit = await proc.waitForExit(timeoutMs);
    return { ...exit, stdout: proc.stdout(), stderr: proc.stderr(), proc };
  } finally {
    await proc.kill();
  }
}

export function withTimeout<T>(p: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, rej) => {
    timer = setTimeout(() => rej(new Error(message())), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One HTTP request with a bound on its duration. */
export async function http(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body,
    signal: AbortSignal.timeout(init.timeoutMs ?? 5_000),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/**
 * Polls `GET <baseUrl>/` until it answers (any status), at most `timeoutMs`. When `proc` is given,
 * gives up at once if it exits, reporting its output.
 */
export async function waitForHttp(baseUrl: string, timeoutMs: number, proc?: Proc): Promise<HttpResult> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    if (proc?.exit()) throw new Error(`server exited before answering ${baseUrl}: ${proc.describe()}`);
    try {
      return await http(`${baseUrl}/`, { timeoutMs: 1_000 });
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${baseUrl} did not answer within ${timeoutMs} ms (${(last as Error)?.message})` + (proc ? `: ${proc.describe()}` : ''),
      );
    }
    await sleep(100);
  }
}

/**
 * Polls `/healthz` until it answers 200 (at most `timeoutMs`) and returns that answer. An instance
 * that answers already reports 503 until its webhook worker has completed its first tick (SPEC §4),
 * which it starts as it boots: a check made as soon as it answers can lose that race.
 */
export async function waitForHealthy(baseUrl: string, timeoutMs = 10_000): Promise<HttpResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await http(`${baseUrl}/healthz`, { timeoutMs: 2_000 });
    if (r.status === 200) return r;
    if (Date.now() > deadline) throw new Error(`${baseUrl}/healthz still answers ${r.status} after ${timeoutMs} ms: ${r.text.slice(0, 500)}`);
    await sleep(25);
  }
}

/** Whether something accepts TCP connections on 127.0.0.1:port (bounded to `timeoutMs`). */
export function canConnect(port: number, host = '127.0.0.1', timeoutMs = 1_000): Promise<boolean> {
  return new Promise((res) => {
    const socket = connect({ port, host });
    const finish = (ok: boolean) => {
      socket.destroy();
      res(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/** The non-empty lines of a text. */
export const lines = (text: string) => text.split(/\r?\n/).filter((l) => l.trim() !== '');

export interface RunningServer {
  proc: Proc;
  port: number;
  url: string;
}

/** Starts dist/src/main.js on a free port and waits (bounded) until `GET /` answers. */
export async function startServerProcess(
  databaseUrl: string,
  extra: Record<string, string | undefined> = {},
  timeoutMs = 20_000,
): Promise<RunningServer> {
  const port = await freePort();
  const proc = spawnNode(MAIN_JS, [], serverEnv(databaseUrl, port, extra));
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url, timeoutMs, proc);
  return { proc, port, url };
}

/** Runs a program found on PATH (npm, npx, sh) in the repository or `cwd`, bounded; never rejects. */
export function runProgram(
  program: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
  cwd = ROOT,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(program, args, { cwd, env, timeout: timeoutMs }, (err, stdout, stderr) => {
      res({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

/** Every file under `dir` with its size and modification time: what a rebuild, or any write, changes. */
export function treeSnapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const st = statSync(path);
        out[relative(dir, path)] = `${st.size} ${st.mtimeMs}`;
      }
    }
  };
  walk(dir);
  return out;
}

const handedOut = new Set<number>();
/**
 * The ports of the Fetch standard's "bad port" list at or above 10000: fetch (undici) refuses to
 * connect to them, so a server listening there answers no test (a CI run drew 10080 once).
 */
const FETCH_REFUSED = new Set([10_080]);

/**
 * A port for a child process to listen on. The kernel's pick (port 0) comes from the ephemeral
 * range, where any outgoing connection on this busy machine may take it in the moment before the
 * child binds it (a launcher in CI found its port taken so); a port below that range is taken only
 * by a listener, so a random one checked free stays free until the child binds it.
 */
export async function freePort(): Promise<number> {
  const top = ephemeralLow() - 1;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * (top - 10_000));
    if (FETCH_REFUSED.has(port) || handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between 10000 and ${top}`);
}

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (low > 11_000) return low;
  } catch {
    // Not Linux: IANA's ephemeral range starts at 49152, and the defaults of macOS follow it.
  }
  return 49_152;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(false));
    s.listen(port, '0.0.0.0', () => s.close(() => res(true)));
  });
}

