import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { http, killAll, lines, requireBuild, sleep, startServerProcess, TEST_ADMIN_TOKEN, type RunningServer } from '../helpers/process';

/**
 * SPEC §8 NODE_ENV / LOG_LEVEL against the BUILT server run as a process: production logs one
 * JSON object per line, `silent` logs nothing, and credentials never reach the log.
 */

/** A few requests of different outcomes: 200, 404 (unknown route), 401, 400 (malformed JSON). */
async function exercise(server: RunningServer): Promise<void> {
  expect((await http(`${server.url}/`)).status).toBe(200);
  expect((await http(`${server.url}/no/such/route`)).status).toBe(404);
  expect((await http(`${server.url}/v1/whoami`)).status).toBe(401);
  const empty = await http(`${server.url}/v1/admin/games`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
  });
  expect(empty.status).toBe(400);
  const bad = await fetch(`${server.url}/v1/admin/games`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: '{"name": ',
    signal: AbortSignal.timeout(5_000),
  });
  await bad.text();
  expect(bad.status).toBe(400);
}

/** Stops the server with SIGTERM (bounded) so everything it logged is flushed and read. */
async function stop(server: RunningServer): Promise<void> {
  server.proc.child.kill('SIGTERM');
  await server.proc.waitForExit(10_000);
}

function parseJsonLines(text: string): Array<Record<string, unknown>> {
  return lines(text).map((line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new Error(`stdout line is not JSON: ${line}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error(`stdout line is not a JSON object: ${line}`);
    }
    return parsed as Record<string, unknown>;
  });
}

jest.setTimeout(60_000);

describe('logging (built dist/src/main.js as a process)', () => {
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

  it('NODE_ENV=production LOG_LEVEL=info: every stdout line is one JSON object with level, time and msg', async () => {
    const server = await startServerProcess(db.url, { NODE_ENV: 'production', LOG_LEVEL: 'info' });
    await exercise(server);
    await stop(server);

    const entries = parseJsonLines(server.proc.stdout());
    expect(entries.length).toBeGreaterThan(0); // at least the start-up lines
    for (const e of entries) {
      expect(e).toHaveProperty('level');
      expect(e).toHaveProperty('time');
      expect(e).toHaveProperty('msg');
      expect(typeof e.msg).toBe('string');
    }
    // info hides the debug-level completion of successful requests.
    expect(entries.filter((e) => e.msg === 'request completed' && (e.res as { statusCode?: number })?.statusCode === 200)).toEqual([]);
    // Nothing is written to stderr on a normal run.
    expect(server.proc.stderr()).toBe('');
  });

  it('LOG_LEVEL=silent: stdout stays empty through start-up, requests and shutdown', async () => {
    const server = await startServerProcess(db.url, { NODE_ENV: 'production', LOG_LEVEL: 'silent' });
    await exercise(server);
    await sleep(200);
    expect(server.proc.stdout()).toBe('');
    await stop(server);
    expect(server.proc.stdout()).toBe('');
    expect(server.proc.stderr()).toBe('');
  });

  it('LOG_LEVEL=silent in development (no pretty printer either): stdout stays empty', async () => {
    const server = await startServerProcess(db.url, { NODE_ENV: 'development', LOG_LEVEL: 'silent' });
    await exercise(server);
    await stop(server);
    expect(server.proc.stdout()).toBe('');
  });

  describe('LOG_LEVEL=debug NODE_ENV=production', () => {
    const fakeKey = 'jk_0123456789abcdef.SECRETpartOfTheKeyThatMustNeverBeLogged0000000';
    const basic = 'Basic dXNlcjpzM2NyZXQtcGFzc3dvcmQ=';
    let out = '';
    let err = '';
    const ids: Record<string, string | null> = {};

    beforeAll(async () => {
      const server = await startServerProcess(db.url, { NODE_ENV: 'production', LOG_LEVEL: 'debug' });
      try {
        const root = await http(`${server.url}/`, { headers: { authorization: basic } });
        expect(root.status).toBe(200);
        ids.root = root.headers.get('x-request-id');

        const whoami = await http(`${server.url}/v1/whoami`, { headers: { authorization: `Bearer ${fakeKey}` } });
        expect(whoami.status).toBe(401);
        ids.whoami = whoami.headers.get('x-request-id');

        const given = await http(`${server.url}/v1/admin/games`, {
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-request-id': 'e2e-logging-trace-42' },
        });
        expect(given.status).toBe(200);
        expect(given.headers.get('x-request-id')).toBe('e2e-logging-trace-42');
        ids.given = given.headers.get('x-request-id');

        const unknown = await http(`${server.url}/no/such/route`, { headers: { authorization: `Bearer ${fakeKey}` } });
        expect(unknown.status).toBe(404);
        ids.unknown = unknown.headers.get('x-request-id');

        await stop(server);
      } finally {
        out = server.proc.stdout();
        err = server.proc.stderr();
      }
    });

    /** The completion entries (pino-http: req, res, responseTime) of the request with this id. */
    const completions = (id: string | null) =>
      parseJsonLines(out).filter(
        (e) => (e.req as { id?: unknown } | undefined)?.id === id && 'res' in e && typeof e.responseTime === 'number',
      );

    it('every stdout line is a JSON object', () => {
      expect(() => parseJsonLines(out)).not.toThrow();
    });

    it.each([
      ['GET / (generated id)', 'root', '/', 200],
      ['GET /v1/whoami refused (generated id)', 'whoami', '/v1/whoami', 401],
      ['GET /v1/admin/games (caller-supplied x-request-id)', 'given', '/v1/admin/games', 200],
      ['GET of an unknown route', 'unknown', '/no/such/route', 404],
    ] as const)('%s: its completion is logged once with req.id equal to the x-request-id header', (_label, key, url, status) => {
      const id = ids[key];
      expect(id).toBeTruthy();
      const done = completions(id);
      if (done.length !== 1) {
        const logged = lines(out).filter((l) => l.includes('"responseTime"'));
        throw new Error(
          `expected one completion entry with req.id ${id} (${url}), found ${done.length}; ` +
            `the completion entries logged were:\n${logged.join('\n')}`,
        );
      }
      expect(done[0]).toMatchObject({ req: { id, method: 'GET', url }, res: { statusCode: status } });
      expect(typeof done[0].level).toBe('number');
      expect(typeof done[0].time).toBe('number');
    });

    it('no Authorization header value appears in the output', () => {
      const everything = out + err;
      expect(everything.length).toBeGreaterThan(0);
      for (const secret of [fakeKey, 'SECRETpartOfTheKeyThatMustNeverBeLogged', TEST_ADMIN_TOKEN, 'dXNlcjpzM2NyZXQtcGFzc3dvcmQ=']) {
        expect(everything).not.toContain(secret);
      }
    });
  });
});
