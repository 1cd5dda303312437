import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source';
import { confirmedRows, horizonRows } from '../../src/db/sql';
import { HORIZON } from '../../src/events/feed.repository';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The feed's horizon never goes back between reads made one after the other. It leaves out the
 * transactions pg_stat_activity shows in other databases; read after the statement's snapshot, a
 * transaction of another database that ended in between was in the snapshot and no longer among the
 * sessions, so it counted, and the horizon dropped below one found a moment before. (A stream whose
 * replay ended under such a dip never sent the event its live tail had already passed.)
 */
let t: TestApp;
let ds: DataSource;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  ds = t.app.get(DataSource);
});
afterAll(() => t.close());

/** The horizon as a reader finds it, read as `read` reads, in a statement that first sleeps `sleepMs`. */
type Read = (sql: string) => Promise<{ h: string }[]>;
const readers: [string, Read][] = [
  ['horizonRows', (sql) => horizonRows<{ h: string }>(ds, sql, [])],
  ['confirmedRows', (sql) => confirmedRows<{ h: string }>(ds, sql, [])],
];
const horizonAfter = async (read: Read, sleepMs: number) =>
  BigInt((await read(`SELECT pg_sleep(${sleepMs / 1000})::text AS slept, (${HORIZON})::text AS h`))[0].h);

describe.each(readers)('the horizon read by %s', (_, read) => {
  it('does not go back when a transaction of another database ends while a statement runs', async () => {
    const elsewhere = new Client({ connectionString: process.env.GH_TEST_SERVER_URL });
    elsewhere.on('error', () => undefined);
    await elsewhere.connect();
    try {
      await elsewhere.query('BEGIN');
      const [{ x }] = (await elsewhere.query<{ x: string }>('SELECT pg_current_xact_id()::text AS x')).rows;
      // A transaction here that ends after it took its id: the snapshot's xmax passes it, so it is among those in progress.
      await ds.query('SELECT pg_current_xact_id()');
      // Left out while it runs: the horizon is past it (once this database's own brief transactions older than it have ended).
      let before = await horizonAfter(read, 0);
      for (const until = Date.now() + 5_000; before <= BigInt(x) && Date.now() < until; ) before = await horizonAfter(read, 20);
      expect(before).toBeGreaterThan(BigInt(x));

      // It ends while the next statement sleeps: after that statement's snapshot, before its horizon is worked out.
      const reading = horizonAfter(read, 600);
      await new Promise((r) => setTimeout(r, 200));
      await elsewhere.query('COMMIT');
      expect(await reading).toBeGreaterThanOrEqual(before);
    } finally {
      await elsewhere.query('ROLLBACK').catch(() => undefined);
      await elsewhere.end();
    }
  });
});

it('a statement after the sessions still answers its own rows and errors (the riders stay out of them)', async () => {
  expect(await horizonRows<{ n: number }>(ds, 'SELECT n FROM generate_series(1, 3) n WHERE n > $1', [1])).toEqual([{ n: 2 }, { n: 3 }]);
  await expect(horizonRows(ds, 'SELECT 1/0 AS n', [])).rejects.toMatchObject({ code: '22012' });
  // The connection that failed went back to the pool discarded; the next read works.
  expect(await horizonRows<{ n: number }>(ds, 'SELECT 1 AS n', [], true)).toEqual([{ n: 1 }]);
});

it('a connection lost while its statement runs (its socket cut, as a killed server leaves it) fails that read; the process and the pool go on', async () => {
  // The pool reaches PostgreSQL through a relay whose sockets the test cuts.
  const target = new URL(t.db.url);
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    const server = connect(Number(target.port), target.hostname);
    for (const s of [client, server]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(server).pipe(client);
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  const via = new URL(t.db.url);
  via.hostname = '127.0.0.1';
  via.port = String((relay.address() as AddressInfo).port);
  const relayed = await createDataSource({ url: via.toString(), poolMax: 2 }).initialize();
  try {
    const reading = horizonRows(relayed, 'SELECT pg_sleep(5)', [], true).then(
      () => null,
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 300));
    for (const s of sockets) s.resetAndDestroy();
    // Unheard, the client's 'error' event would have thrown out of the test instead.
    expect(String(await reading)).toMatch(/ECONNRESET|terminated/);
    expect(await horizonRows<{ n: number }>(relayed, 'SELECT 1 AS n', [], true)).toEqual([{ n: 1 }]);
  } finally {
    await relayed.destroy();
    relay.close();
    for (const s of sockets) s.destroy();
  }
});
