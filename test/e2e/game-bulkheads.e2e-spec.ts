import { request as httpRequest } from 'node:http';
import { Client } from 'pg';
import { bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The bulkheads between games (docs/security.md): a game's expensive reads (search, feed pages,
 * stream replays) run at most GAME_READ_CONCURRENCY at once per instance, four times as many wait,
 * the rest are refused with 429 and Retry-After at once; another game keeps its own slots. To hold
 * reads in flight, a table they read is locked by another session until the test lets go.
 */
const LIMIT = 1;
const QUEUE = 4 * LIMIT;

/** The status and Retry-After of a GET, without reading a stream's body past its headers. */
function statusOf(base: string, path: string, key: string): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined });
      req.destroy();
    });
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
    req.end();
  });
}

describe('per-game bulkheads of expensive reads', () => {
  let t: TestApp;
  let base: string;
  let a: { key: string; gameId: string };
  let b: { key: string; gameId: string };
  const firstEvent = { a: '', b: '' };

  beforeAll(async () => {
    t = await startTestApp({ GAME_READ_CONCURRENCY: String(LIMIT), DATABASE_POOL_MAX: '10' });
    a = await newGame(t, 'busy game');
    b = await newGame(t, 'other game');
    for (const g of [a, b]) {
      const r = await t.http.post('/v1/groups').set(bearer(g.key)).send({ kind: 'guild', name: 'Dawn Knights', visibility: 'public' });
      expect(r.status).toBe(201);
    }
    firstEvent.a = (await t.http.get('/v1/events/feed').set(bearer(a.key))).body.items[0].id;
    firstEvent.b = (await t.http.get('/v1/events/feed').set(bearer(b.key))).body.items[0].id;
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(() => t.close());

  /** Runs `body` while another session holds `table` locked against reads; answers what `body` answered. */
  async function withTableLocked<T>(table: string, body: () => Promise<T>): Promise<T> {
    const locker = new Client({ connectionString: t.db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      return await body();
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
  }

  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  const reads: [string, string, (after: string) => string][] = [
    ['a search', 'groups', () => '/v1/groups/search?q=dawn'],
    ['a feed page', 'journal', () => '/v1/events/feed'],
    ['a stream replay', 'journal', (after) => `/v1/events?after=${after}`],
  ];
  it.each(reads)('%s: a game past its slots and its line is told 429 at once; another game keeps its own; the line is served after', async (_what, table, path) => {
    const { held, other } = await withTableLocked(table, async () => {
      // One runs (and waits on the lock), QUEUE wait in line: one more of the same game is refused at once.
      const held = Array.from({ length: LIMIT + QUEUE }, () => statusOf(base, path(firstEvent.a), a.key));
      await pause(300);
      const started = performance.now();
      expect(await statusOf(base, path(firstEvent.a), a.key)).toEqual({ status: 429, retryAfter: '1' });
      expect(performance.now() - started).toBeLessThan(1_000);
      // The other game is admitted: it waits on the lock like everyone, not on the busy game's line.
      const other = statusOf(base, path(firstEvent.b), b.key);
      await pause(300);
      return { held, other };
    });
    expect((await Promise.all(held)).map((r) => r.status)).toEqual(Array(LIMIT + QUEUE).fill(200));
    expect((await other).status).toBe(200);
  });
});
