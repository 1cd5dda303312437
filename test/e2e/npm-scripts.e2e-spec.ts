import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { canConnect, freePort, http, killAll, lines, requireBuild, serverEnv, sleep, spawnNode, type Proc } from '../helpers/process';
import { descendants, isRunning, processInfo, type ProcessInfo } from '../helpers/process-tree';

/**
 * `npm run start:prod` as an operator runs it, npm included: a SIGTERM or SIGINT to npm reaches the
 * server, which drains and exits, and npm ends with it. Before, npm's shell took the signal and died,
 * leaving the server serving under PID 1 (and the next start refused: port in use).
 */

jest.setTimeout(150_000);

/** docs/operations.md: an instance stops within 35 s (the webhook drain is capped at 30 s). */
const DRAIN_MS = 35_000;

/**
 * The npm beside the node running the tests, run as its `npm` command runs it; a node without one
 * (the npm package `node`, which CI runs the suites on too) uses the npm that started the run.
 */
const NPM_CLI = realpathSync(
  [join(dirname(process.execPath), 'npm'), process.env.npm_execpath].find((f): f is string => !!f && existsSync(f)) ??
    execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim(),
);

/** Polls /healthz until it answers 200, at most `timeoutMs`; gives up at once if npm exits. */
async function waitForHealthy(url: string, npm: Proc, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (npm.exit()) throw new Error(`npm exited before ${url}/healthz answered 200: ${npm.describe()}`);
    const status = await http(`${url}/healthz`, { timeoutMs: 1_000 }).then((r) => r.status, () => null);
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url}/healthz did not answer 200 within ${timeoutMs} ms: ${npm.describe()}`);
    await sleep(100);
  }
}

/** The node processes running the built server below `pid` (a shell in between is not one). */
const serversBelow = (pid: number): ProcessInfo[] =>
  descendants(pid).filter((p) => basename(p.argv[0] ?? '') === 'node' && p.argv.includes('dist/src/main.js'));

describe('npm run start:prod (npm, its script and the built server as processes)', () => {
  let db: TestDatabase;
  const outlived: number[] = [];

  beforeAll(async () => {
    requireBuild();
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await killAll();
    // A server that outlived npm is no child of this process: killAll cannot reach it.
    for (const pid of outlived.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  });
  afterAll(() => db?.drop());

  it.each(['SIGTERM', 'SIGINT'] as const)('%s to npm: the server drains and exits, npm exits 0 after it, the port is closed', async (signal) => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = serverEnv(db.url, port, { NODE_ENV: 'production', LOG_LEVEL: 'info', npm_config_update_notifier: 'false' });
    const npm = spawnNode(NPM_CLI, ['run', 'start:prod'], env);
    await waitForHealthy(url, npm, 60_000);
    const servers = serversBelow(npm.pid);
    expect(servers.map((s) => s.argv.join(' '))).toEqual([expect.stringMatching(/(^|\/)node dist\/src\/main\.js$/)]);
    const server = servers[0].pid;
    outlived.push(server);

    npm.child.kill(signal);
    const exit = await npm.waitForExit(DRAIN_MS);

    const left = processInfo(server);
    expect({ serverStillRunning: isRunning(server) ? `pid ${server} (${left?.argv.join(' ')}), parent ${left?.ppid}` : false }).toEqual({
      serverStillRunning: false,
    });
    expect(await canConnect(port)).toBe(false);
    expect({ exit, stderr: npm.stderr() }).toEqual({ exit: { code: 0, signal: null }, stderr: '' });
    // It drained: the server's own shutdown line, not a kill, ended it.
    const stops = lines(npm.stdout()).filter((l) => l.includes(`"signal":"${signal}"`));
    expect(stops).toHaveLength(1);
    expect(JSON.parse(stops[0])).toMatchObject({ context: 'Guildhall', signal, drainMs: expect.any(Number) });
  });
});
