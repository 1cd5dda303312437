import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { newEraMessage } from '../../src/db/feed-era';
import { RELEASE } from '../../src/version';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../helpers/test-db';
import {
  freePort,
  http,
  killAll,
  lines,
  MAIN_JS,
  requireBuild,
  ROOT,
  serverEnv,
  spawnNode,
  TEST_ADMIN_TOKEN,
  waitForHttp,
  withTimeout,
  type Proc,
} from '../helpers/process';

/**
 * With NODE_ENV=production every line the BUILT server writes, on stdout and stderr, is one JSON
 * object (docs/operations.md, "Logs"): the start line and the shutdown line, which say what an
 * operator needs in one line each; the start-up refusals and the new feed era, said before the
 * logger exists; and Node's own warnings and uncaught errors.
 */

jest.setTimeout(240_000);

type Entry = Record<string, unknown>;

/** Every line of a stream, each parsed as one JSON object with pino's level, time and msg. */
function entries(text: string): Entry[] {
  return lines(text).map((line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new Error(`a line is not JSON: ${line}`);
    }
    expect(parsed).toEqual(expect.objectContaining({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String) }));
    return parsed as Entry;
  });
}

const production = (url: string | undefined, port: number, extra: Record<string, string> = {}) =>
  serverEnv(url, port, { NODE_ENV: 'production', LOG_LEVEL: 'info', ...extra });

async function startProduction(url: string, extra: Record<string, string> = {}): Promise<{ proc: Proc; port: number; base: string }> {
  const port = await freePort();
  const proc = spawnNode(MAIN_JS, [], production(url, port, extra));
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(base, 60_000, proc);
  return { proc, port, base };
}

/** A connection that stays open: with `request`, after one answered request (kept alive); without, silent. */
async function openConnection(port: number, request: boolean): Promise<{ closed: Promise<void> }> {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((res, rej) => socket.once('connect', res).once('error', rej));
  const closed = new Promise<void>((res) => socket.once('close', () => res()));
  if (request) {
    const answered = new Promise<void>((res) => socket.once('data', () => res()));
    socket.write('GET / HTTP/1.1\r\nHost: guildhall\r\n\r\n');
    await answered;
  }
  socket.on('data', () => undefined);
  return { closed };
}

async function sigterm(proc: Proc): Promise<void> {
  proc.child.kill('SIGTERM');
  expect(await proc.waitForExit(35_000)).toEqual({ code: 0, signal: null });
}

describe('production log lines (built dist/src/main.js, NODE_ENV=production)', () => {
  const dbs: TestDatabase[] = [];
  const database = async (make: () => Promise<TestDatabase>) => {
    const db = await make();
    dbs.push(db);
    return db;
  };

  beforeAll(() => requireBuild());
  afterEach(() => killAll());
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('start and stop at info: two JSON lines, the start line (release, addresses, migrations, era) and the shutdown line (signal, drain time, connections closed)', async () => {
    const db = await database(createEmptyDatabase);
    const metricsPort = await freePort();
    const { proc, port } = await startProduction(db.url, { METRICS_PORT: String(metricsPort) });
    const applied = (await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY id')).map((r) => r.name);
    expect(applied.length).toBeGreaterThan(0);
    // Open at the signal: one kept alive after its answer, one that never sent a byte.
    const connections = [await openConnection(port, true), await openConnection(port, false)];

    await sigterm(proc);
    await withTimeout(Promise.all(connections.map((c) => c.closed)), 5_000, () => 'the server left a client connection open');

    expect(proc.stderr()).toBe('');
    const logged = entries(proc.stdout());
    expect(logged).toEqual([
      expect.objectContaining({
        level: 30,
        context: 'Guildhall',
        release: RELEASE,
        listen: `127.0.0.1:${port}`,
        metrics: `127.0.0.1:${metricsPort}`,
        migrationsApplied: applied,
        era: 1,
        msg: expect.stringContaining(`Guildhall ${RELEASE} is listening on 127.0.0.1:${port}; metrics on 127.0.0.1:${metricsPort}; applied ${applied.length} migration(s)`),
      }),
      expect.objectContaining({ level: 30, context: 'Guildhall', signal: 'SIGTERM', drainMs: expect.any(Number), connectionsClosed: expect.any(Number) }),
    ]);
    expect(logged[1].connectionsClosed).toBeGreaterThanOrEqual(connections.length);
    expect(logged[1].msg).toBe(`SIGTERM: stopped after ${logged[1].drainMs} ms; ${logged[1].connectionsClosed} client connection(s) closed`);
  });

  describe('a refused start-up is one JSON line on stderr (level 60), exit 1', () => {
    const cases: Array<[string, () => Promise<{ url?: string; port: number; extra?: Record<string, string>; release?: () => Promise<void> }>, RegExp]> = [
      ['an invalid setting', async () => ({ url: (await database(createTestDatabase)).url, port: await freePort(), extra: { LOG_LEVEL: 'loud' } }), /^Invalid setting LOG_LEVEL/],
      ['DATABASE_URL unset', async () => ({ port: await freePort() }), /DATABASE_URL/],
      ['the database unreachable', async () => ({ url: `postgres://postgres@127.0.0.1:${await freePort()}/x`, port: await freePort() }), /^cannot reach the database at 127\.0\.0\.1:\d+\/x/],
      [
        'the port taken',
        async () => {
          const holder = createServer();
          await new Promise<void>((res) => holder.listen(0, '127.0.0.1', res));
          const url = (await database(createTestDatabase)).url;
          return { url, port: (holder.address() as AddressInfo).port, release: () => new Promise<void>((res) => holder.close(() => res())) };
        },
        /^port \d+ is already in use on 127\.0\.0\.1/,
      ],
      [
        'migrations pending with MIGRATE_ON_BOOT=false',
        async () => ({ url: (await database(createEmptyDatabase)).url, port: await freePort(), extra: { MIGRATE_ON_BOOT: 'false' } }),
        /^\d+ migrations are pending on the database/,
      ],
    ];

    it.each(cases)('%s', async (_name, arrange, said) => {
      const { url, port, extra, release } = await arrange();
      try {
        const proc = spawnNode(MAIN_JS, [], production(url, port, extra));
        expect(await proc.waitForExit(30_000)).toEqual({ code: 1, signal: null });
        expect(proc.stdout()).toBe('');
        const logged = entries(proc.stderr());
        expect(logged).toEqual([expect.objectContaining({ level: 60, context: 'Guildhall', pid: proc.pid, msg: expect.stringMatching(said) })]);
      } finally {
        await release?.();
      }
    });
  });

  it('a database restored from another cluster: the new era is a JSON warning before the start line, which names that era', async () => {
    const db = await database(createTestDatabase);
    const first = await startProduction(db.url);
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const game = await http(`${first.base}/v1/admin/games`, { method: 'POST', headers: admin, body: { name: 'restored' } });
    const key = await http(`${first.base}/v1/admin/games/${game.body.id}/api-keys`, { method: 'POST', headers: admin });
    const group = await http(`${first.base}/v1/groups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.body.key}` },
      body: { kind: 'guild', name: 'Keepers', visibility: 'public' },
    });
    expect([game.status, key.status, group.status]).toEqual([201, 201, 201]);
    await sigterm(first.proc);
    // Rows as a dump from a cluster ten million transactions further on brings them (event-feed-restore.e2e-spec.ts).
    await db.query(`UPDATE journal SET xid = (xid::text::bigint + 10000000)::text::xid8`);

    const again = await startProduction(db.url);
    await sigterm(again.proc);
    // Said before the logger exists, on stderr; the start line follows on stdout.
    const era = entries(again.proc.stderr());
    expect(era).toEqual([expect.objectContaining({ level: 40, context: 'FeedEra', msg: newEraMessage(2) })]);
    const logged = entries(again.proc.stdout());
    expect(logged.map((e) => e.context)).toEqual(['Guildhall', 'Guildhall']);
    expect(logged[0]).toMatchObject({ level: 30, era: 2, migrationsApplied: [] });
    expect(logged[0].time as number).toBeGreaterThanOrEqual(era[0].time as number);
  });

  it("Node's own warning and an uncaught error are JSON lines too; the error exits 1", async () => {
    const db = await database(createTestDatabase);
    const trouble = join(ROOT, 'test/helpers/trouble-on-sigusr2.cjs');
    const { proc } = await startProduction(db.url, { NODE_OPTIONS: `--require ${JSON.stringify(trouble)}` });
    proc.child.kill('SIGUSR2');
    expect(await proc.waitForExit(30_000)).toEqual({ code: 1, signal: null });
    expect(entries(proc.stdout()).map((e) => e.context)).toEqual(['Guildhall']);
    const logged = entries(proc.stderr());
    expect(logged).toEqual([
      expect.objectContaining({ level: 40, context: 'node', msg: 'Warning: a warning the test asked for' }),
      expect.objectContaining({
        level: 60,
        context: 'node',
        msg: 'uncaught error: an error the test asked for',
        err: expect.objectContaining({ type: 'Error', message: 'an error the test asked for', stack: expect.stringContaining('trouble-on-sigusr2.cjs') }),
      }),
    ]);
  });
});
