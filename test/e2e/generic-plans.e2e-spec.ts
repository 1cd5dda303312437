import { ServiceClient } from '../../src/db/prepared-client';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

/**
 * A prepared statement read after the sessions (the webhook worker's position claim) runs on its
 * generic plan from its first call on a connection, where PostgreSQL's `auto` mode would plan it
 * anew on each of its first five calls there, and for good when its generic plan costs more than
 * its custom ones; the setting that asks for it ends with the statement's batch. That plan, kept for
 * the connection's life, uses an index wherever one serves, whatever the tables held when it was made.
 */
let db: TestDatabase;
let c: ServiceClient;
beforeAll(async () => {
  db = await createTestDatabase();
  c = new ServiceClient({ connectionString: db.url });
  await c.connect();
});
afterAll(async () => {
  await c.end();
  await db.drop();
});

type Rows = { rows: Record<string, unknown>[] };
const plain = (text: string) => (c.query as unknown as (t: string) => Promise<Rows>)(text);
const MODE = "SELECT current_setting('plan_cache_mode') AS mode";

/** The plans PostgreSQL made for the prepared statement whose text starts with `start`, on this connection. */
async function plans(start: string): Promise<{ generic: number; custom: number }> {
  const { rows } = await plain(`SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement LIKE '${start}%'`);
  expect(rows).toHaveLength(1);
  return rows[0] as { generic: number; custom: number };
}

it('plans a prepared statement generic from its first call, and leaves the connection as it was', async () => {
  const sql = 'SELECT n, current_setting($2) AS mode FROM unnest($1::int[]) n ORDER BY n';
  for (let i = 1; i <= 7; i++) {
    expect(await c.queryAfterSessions(sql, [[i, 0], 'plan_cache_mode'])).toEqual([
      { n: 0, mode: 'force_generic_plan' },
      { n: i, mode: 'force_generic_plan' },
    ]);
    expect((await plain(MODE)).rows).toEqual([{ mode: 'auto' }]);
  }
  expect(await plans('SELECT n, current_setting')).toEqual({ generic: 7, custom: 0 });
});

it('leaves a statement planned on each call to its custom plan', async () => {
  expect(await c.queryAfterSessions("SELECT current_setting('plan_cache_mode') AS mode", [], true)).toEqual([{ mode: 'auto' }]);
});

it('a statement that fails ends the setting with its batch', async () => {
  await expect(c.queryAfterSessions('SELECT 1 / $1::int AS n', [0])).rejects.toMatchObject({ code: '22012' });
  expect((await plain(MODE)).rows).toEqual([{ mode: 'auto' }]);
  expect(await c.queryAfterSessions('SELECT 1 / $1::int AS n', [1])).toEqual([{ n: 1 }]);
});

it('keeps probing a table by its index once it has grown, where its plan was made while it was empty', async () => {
  await plain('CREATE TABLE grown (id uuid PRIMARY KEY, n int) WITH (autovacuum_enabled = false)');
  // Known empty, as autovacuum finds webhook_deliveries on a new database: a scan of it costs nothing.
  await plain('VACUUM ANALYZE grown');
  const sql = 'SELECT EXISTS (SELECT 1 FROM grown g WHERE g.id = $1::uuid) AS found';
  const some = '01900000-0000-7000-8000-000000000001';
  expect(await c.queryAfterSessions(sql, [some])).toEqual([{ found: false }]);
  await plain(`INSERT INTO grown SELECT ('01900000-0000-7000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, n FROM generate_series(1, 20000) n`);
  expect(await c.queryAfterSessions(sql, [some])).toEqual([{ found: true }]);
  const { rows } = await plain(`SELECT name FROM pg_prepared_statements WHERE statement = '${sql}'`);
  // The plan the connection keeps for the statement (EXPLAIN EXECUTE takes it from the plan cache).
  await plain('SET plan_cache_mode = force_generic_plan');
  const plan = (await plain(`EXPLAIN EXECUTE "${rows[0].name as string}"('${some}')`)).rows.map((r) => r['QUERY PLAN']).join('\n');
  await plain('RESET plan_cache_mode');
  expect(plan).toMatch(/Index (Only )?Scan using grown_pkey on grown/);
  expect(plan).not.toMatch(/Seq Scan/);
  expect(await plans('SELECT EXISTS (SELECT 1 FROM grown')).toEqual({ generic: 3, custom: 0 });
});
