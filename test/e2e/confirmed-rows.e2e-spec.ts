import { DataSource, type QueryRunner } from 'typeorm';
import { databaseUnavailableCause } from '../../src/common/errors/db-unavailable';
import { ServiceClient } from '../../src/db/prepared-client';
import { confirmedRows } from '../../src/db/sql';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

/**
 * A read that hands out feed positions is confirmed on the backend that answered it: a backend of a
 * primary that died (or is being demoted) may have shown a commit never replicated, and finds its
 * server gone once it waits for the next message. Here the backend is ended between its answer
 * and the confirmation, as a dying server ends it, and the read must be thrown away.
 */
let db: TestDatabase;
let ds: DataSource;
beforeAll(async () => {
  db = await createTestDatabase();
  ds = new DataSource({ type: 'postgres', url: db.url, extra: { Client: ServiceClient } });
  await ds.initialize();
});
afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});
afterEach(() => jest.restoreAllMocks());

/**
 * Every statement the reads send (the read itself on the runner's connection, after the sessions'
 * read; the confirmation on the runner), with the backend that ran it; `beforeConfirm` runs ahead of
 * the confirmation.
 */
function watchRunners(beforeConfirm?: (pid: number) => Promise<void>): { sql: string; pid: number }[] {
  const seen: { sql: string; pid: number }[] = [];
  const create = ds.createQueryRunner.bind(ds);
  jest.spyOn(ds, 'createQueryRunner').mockImplementation(() => {
    const runner: QueryRunner = create();
    const query = runner.query.bind(runner);
    const connect = runner.connect.bind(runner);
    let pid = 0;
    runner.connect = async () => {
      const client = (await connect()) as ServiceClient;
      const read = async (sql: string, params: unknown[], planEachCall?: boolean) => {
        [{ pid }] = (await query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
        seen.push({ sql, pid });
        return client.queryAfterSessions(sql, params, planEachCall);
      };
      // The runner's own statements go through connect() too: only the read is watched here.
      return new Proxy(client, { get: (target, key) => (key === 'queryAfterSessions' ? read : Reflect.get(target, key, target)) });
    };
    runner.query = (async (sql: string, params?: unknown[]) => {
      if (sql === 'SELECT 1' && beforeConfirm) await beforeConfirm(pid);
      else [{ pid }] = (await query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
      seen.push({ sql, pid });
      return query(sql, params);
    }) as QueryRunner['query'];
    return runner;
  });
  return seen;
}

it('asks its backend once more when the rows name positions, and not when there are none', async () => {
  const seen = watchRunners();
  await expect(confirmedRows(ds, 'SELECT g AS n FROM generate_series(1, $1::int) g', [2])).resolves.toEqual([{ n: 1 }, { n: 2 }]);
  expect(seen.map((s) => s.sql)).toEqual(['SELECT g AS n FROM generate_series(1, $1::int) g', 'SELECT 1']);
  expect(seen[1].pid).toBe(seen[0].pid);
  seen.length = 0;
  await expect(confirmedRows(ds, 'SELECT g AS n FROM generate_series(1, $1::int) g', [0])).resolves.toEqual([]);
  expect(seen.map((s) => s.sql)).toEqual(['SELECT g AS n FROM generate_series(1, $1::int) g']);
  seen.length = 0;
  await confirmedRows(ds, 'SELECT 7 AS n', [], () => false);
  expect(seen).toHaveLength(1);
});

it('throws the rows away when the backend that answered them is gone before the confirmation', async () => {
  watchRunners(async (pid) => {
    await db.query('SELECT pg_terminate_backend($1, 5000)', [pid]);
  });
  const err: unknown = await confirmedRows(ds, 'SELECT 1 AS n', []).then(
    () => null,
    (e: unknown) => e,
  );
  // A connection failure, as a request reports it: 503, the client tries again.
  expect(err).toMatchObject({ code: '08006' });
  expect(databaseUnavailableCause(err)).toMatch(/^08006: connection failure/);
  // The pool goes on with other connections.
  jest.restoreAllMocks();
  await expect(confirmedRows(ds, 'SELECT 2 AS n', [])).resolves.toEqual([{ n: 2 }]);
});
