import { RELEASE } from '../../src/version';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createEmptyDatabase, createTestDatabase, databaseUrl, type TestDatabase } from '../helpers/test-db';
import {
  canConnect,
  freePort,
  http,
  killAll,
  lines,
  MAIN_JS,
  requireBuild,
  serverEnv,
  sleep,
  spawnNode,
  startServerProcess,
  waitForHealthy,
  waitForHttp,
  type Exit,
  type Proc,
} from '../helpers/process';

/**
 * SPEC §8 "Server settings" against the BUILT server (dist/src/main.js) run as a process of its
 * own: refused start-ups, migrations on boot, concurrent boots and graceful shutdown.
 */

/**
 * Runs a server expected to refuse to start; while it runs, probes `port` continually so a
 * listener that existed only briefly is still caught. Returns the exit and whether anything
 * ever accepted a connection.
 */
async function runRefused(proc: Proc, port: number, timeoutMs: number): Promise<{ exit: Exit; listened: boolean }> {
  let listened = false;
  const deadline = Date.now() + timeoutMs;
  while (!proc.exit() && Date.now() < deadline) {
    if (await canConnect(port, '127.0.0.1', 200)) listened = true;
    await sleep(20);
  }
  const exit = await proc.waitForExit(Math.max(100, deadline - Date.now()));
  if (await canConnect(port)) listened = true;
  return { exit, listened };
}

jest.setTimeout(60_000);

describe('server start-up (built dist/src/main.js as a process)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    requireBuild();
    db = await createTestDatabase();
  });
  afterEach(() => killAll());
  afterAll(async () => {
    await killAll();
    await db?.drop();
  });

  describe('an invalid setting is refused before the port is bound, with one line naming it', () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
      ['SVC_MAX_PAGE_SIZE', { SVC_MAX_PAGE_SIZE: '0' }],
      ['SVC_MAX_PAGE_SIZE', { SVC_MAX_PAGE_SIZE: '-5' }],
      ['NODE_ENV', { NODE_ENV: 'staging' }],
      ['RATE_LIMIT_PER_MINUTE', { RATE_LIMIT_PER_MINUTE: '1.5' }],
      ['TRUST_PROXY', { TRUST_PROXY: 'yes' }],
      ['SVC_BASE_URL', { SVC_BASE_URL: 'ftp://example.com' }],
      ['SVC_ADMIN_TOKEN', { SVC_ADMIN_TOKEN: 'secret' }],
      ['DATABASE_URL', { DATABASE_URL: 'mysql://root@127.0.0.1/x' }],
      ['OTEL_EXPORTER_OTLP_ENDPOINT', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }],
      ['OTEL_TRACES_SAMPLER_ARG', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '10%' }],
    ];

    it.each(cases)('%s %j', async (setting, bad) => {
      const port = await freePort();
      const proc = spawnNode(MAIN_JS, [], serverEnv(db.url, port, bad));
      const { exit, listened } = await runRefused(proc, port, 10_000);
      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      const errLines = lines(proc.stderr());
      expect(errLines).toHaveLength(1);
      expect(errLines[0]).toContain(setting);
      expect(listened).toBe(false);
    });

    it('PORT=abc', async () => {
      // PORT itself is the bad value, so watch the default port too (when nothing else holds it).
      const defaultPortFree = !(await canConnect(8787));
      const proc = spawnNode(MAIN_JS, [], serverEnv(db.url, 0, { PORT: 'abc' }));
      const { exit, listened } = await runRefused(proc, 8787, 10_000);
      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      const errLines = lines(proc.stderr());
      expect(errLines).toHaveLength(1);
      expect(errLines[0]).toContain('PORT');
      if (defaultPortFree) expect(listened).toBe(false);
    });

    it('PORT=70000 (out of range)', async () => {
      const proc = spawnNode(MAIN_JS, [], serverEnv(db.url, 0, { PORT: '70000' }));
      const exit = await proc.waitForExit(10_000);
      expect(exit.code).not.toBe(0);
      expect(lines(proc.stderr())).toHaveLength(1);
      expect(proc.stderr()).toContain('PORT');
    });
  });

  it('DATABASE_URL missing: non-zero exit and one line naming DATABASE_URL', async () => {
    const port = await freePort();
    const proc = spawnNode(MAIN_JS, [], serverEnv(undefined, port));
    const { exit, listened } = await runRefused(proc, port, 10_000);
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    const errLines = lines(proc.stderr());
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toContain('DATABASE_URL');
    expect(listened).toBe(false);
  });

  it('DATABASE_URL unreachable: non-zero exit within 15 s and one line about the database', async () => {
    const port = await freePort();
    const dbPort = await freePort();
    const proc = spawnNode(MAIN_JS, [], serverEnv(`postgres://postgres@127.0.0.1:${dbPort}/x`, port));
    const started = Date.now();
    const { exit, listened } = await runRefused(proc, port, 15_000);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    const errLines = lines(proc.stderr());
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toMatch(/database/i);
    expect(errLines[0]).toContain(`127.0.0.1:${dbPort}`);
    expect(listened).toBe(false);
  });

  it('DATABASE_URL of a server that accepts but never answers: non-zero exit within 15 s', async () => {
    // A TCP listener that swallows the connection: the start-up must time out, not hang.
    const sockets = new Set<Socket>();
    const silent = createServer((s) => sockets.add(s));
    await new Promise<void>((res) => silent.listen(0, '127.0.0.1', res));
    const dbPort = (silent.address() as AddressInfo).port;
    try {
      const port = await freePort();
      const proc = spawnNode(MAIN_JS, [], serverEnv(`postgres://postgres@127.0.0.1:${dbPort}/x`, port));
      const started = Date.now();
      const { exit, listened } = await runRefused(proc, port, 15_000);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      const errLines = lines(proc.stderr());
      expect(errLines).toHaveLength(1);
      expect(errLines[0]).toMatch(/database/i);
      expect(listened).toBe(false);
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise<void>((res) => silent.close(() => res()));
    }
  });

  it('DATABASE_URL naming a database that does not exist: non-zero exit, one line about the database', async () => {
    const port = await freePort();
    const missing = databaseUrl(process.env.GH_TEST_SERVER_URL!, `gh_missing_${randomBytes(4).toString('hex')}`);
    const proc = spawnNode(MAIN_JS, [], serverEnv(missing, port));
    const { exit, listened } = await runRefused(proc, port, 15_000);
    expect(exit.code).not.toBe(0);
    const errLines = lines(proc.stderr());
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toMatch(/database/i);
    expect(listened).toBe(false);
    // The password of the URL is never echoed.
    const password = new URL(missing).password;
    if (password) expect(proc.stderr()).not.toContain(password);
  });

  it('PORT already taken: non-zero exit with one line, and the other listener is left alone', async () => {
    const taken = createServer();
    await new Promise<void>((res) => taken.listen(0, '127.0.0.1', res));
    const port = (taken.address() as AddressInfo).port;
    try {
      const proc = spawnNode(MAIN_JS, [], serverEnv(db.url, port));
      const exit = await proc.waitForExit(15_000);
      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      const errLines = lines(proc.stderr());
      expect(errLines).toHaveLength(1);
      expect(errLines[0]).toMatch(/EADDRINUSE|in use/i);
      expect(taken.listening).toBe(true);
    } finally {
      await new Promise<void>((res) => taken.close(() => res()));
    }
  });

  it('valid settings on a test database: GET / answers 200 and the schema is migrated', async () => {
    const server = await startServerProcess(db.url);
    const r = await http(`${server.url}/`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: 'guildhall', version: '0.0.0', release: RELEASE });
    const rows = await db.query<{ name: string }>('SELECT name FROM schema_migrations');
    expect(rows.length).toBeGreaterThan(0);
    const health = await waitForHealthy(server.url);
    expect(health.body).toMatchObject({ status: 'ok', db: { ok: true } });
  });

  describe('on a brand-new empty database', () => {
    let empty: Awaited<ReturnType<typeof createEmptyDatabase>> | undefined;
    afterEach(async () => {
      await killAll();
      await empty?.drop();
      empty = undefined;
    });

    it('one server applies the pending migrations on boot', async () => {
      empty = await createEmptyDatabase();
      const before = await empty.query(`SELECT to_regclass('public.games') AS t`);
      expect(before[0].t).toBeNull();

      const server = await startServerProcess(empty.url);
      expect((await http(`${server.url}/`)).status).toBe(200);

      const applied = await empty.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      const expected = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      expect(applied.length).toBeGreaterThan(0);
      expect(applied.map((r) => r.name)).toEqual(expected.map((r) => r.name));
      const after = await empty.query(`SELECT to_regclass('public.games') AS t`);
      expect(after[0].t).toBe('games');
      // The schema is usable, not merely present.
      const games = await http(`${server.url}/v1/admin/games`, {
        headers: { authorization: 'Bearer jadm_e2e_process_0123456789abcdef' },
      });
      expect(games.status).toBe(200);
      expect(games.body).toEqual({ items: [] });
    });

    it('two servers started at the same moment both come up, migrations applied once', async () => {
      empty = await createEmptyDatabase();
      const [portA, portB] = [await freePort(), await freePort()];
      const a = spawnNode(MAIN_JS, [], serverEnv(empty.url, portA));
      const b = spawnNode(MAIN_JS, [], serverEnv(empty.url, portB));
      // The one that waits runs after the other's whole migration of an empty database: on a loaded
      // two-core machine that alone took over 20 s once, so both get 45 (within the file's 60).
      const [ra, rb] = await Promise.all([
        waitForHttp(`http://127.0.0.1:${portA}`, 45_000, a),
        waitForHttp(`http://127.0.0.1:${portB}`, 45_000, b),
      ]);
      expect(ra.status).toBe(200);
      expect(rb.status).toBe(200);

      const dupes = await empty.query('SELECT name, count(*) FROM schema_migrations GROUP BY name HAVING count(*) > 1');
      expect(dupes).toEqual([]);
      const applied = await empty.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      const expected = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      expect(applied.map((r) => r.name)).toEqual(expected.map((r) => r.name));
      expect((await empty.query(`SELECT to_regclass('public.games') AS t`))[0].t).toBe('games');
      // Neither lost its footing afterwards.
      expect(a.exit()).toBeNull();
      expect(b.exit()).toBeNull();
    });
  });

  it('SIGTERM: the process exits cleanly within 10 s and releases the port', async () => {
    const server = await startServerProcess(db.url);
    server.proc.child.kill('SIGTERM');
    const exit = await server.proc.waitForExit(10_000);
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
    expect(await canConnect(server.port)).toBe(false);
  });

  it('SIGTERM shortly after a request still exits cleanly within 10 s', async () => {
    const server = await startServerProcess(db.url, { LOG_LEVEL: 'info', NODE_ENV: 'production' });
    await waitForHealthy(server.url);
    server.proc.child.kill('SIGTERM');
    const exit = await server.proc.waitForExit(10_000);
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
    expect(server.proc.stderr()).toBe('');
  });
});
