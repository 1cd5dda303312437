import { Client } from 'pg';
import { ServiceClient } from '../../src/db/prepared-client';
import { hasRowSql, sendableSql } from '../../src/webhooks/position-sql';
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

/**
 * `n` delivered rows of an endpoint that is not there (the key to webhook_endpoints is not what is
 * measured), one for each of the events 00000001-... to n, written on another connection: setting
 * session_replication_role on this one would drop its plans.
 */
async function deliveries(endpoint: string, n: number): Promise<void> {
  const other = new Client({ connectionString: db.url });
  await other.connect();
  try {
    await other.query('BEGIN');
    await other.query('SET LOCAL session_replication_role = replica');
    await other.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, status)
       SELECT svc_delivery_id($1, left(replace(e::text, '-', ''), 24)), $1, left(replace(e::text, '-', ''), 24), 'delivered'
       FROM (SELECT (lpad(to_hex(n), 8, '0') || '-0000-7000-8000-000000000000')::uuid AS e FROM generate_series(1, $2::int) n) s`,
      [endpoint, n],
    );
    await other.query('COMMIT');
  } finally {
    await other.end();
  }
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

it("keeps looking a webhook delivery up by its primary key once the table has grown, not by reading the delivery log's index whole", async () => {
  // The worker's claim asks this of every event it reads (hasRowSql); its plan is made on a new
  // database, where webhook_deliveries is empty and any index containing `id` costs the same.
  await plain('VACUUM ANALYZE webhook_deliveries');
  const sql = `SELECT ${hasRowSql('$1::uuid', 'o')} AS found FROM (SELECT $2::uuid AS id) o`;
  const endpoint = '01900000-0000-7000-8000-00000000e001';
  const event = '00000001-0000-7000-8000-000000000000';
  expect(await c.queryAfterSessions(sql, [endpoint, event])).toEqual([{ found: false }]);
  await deliveries(endpoint, 20_000);
  expect(await c.queryAfterSessions(sql, [endpoint, event])).toEqual([{ found: true }]);
  const { rows } = await plain(`SELECT name FROM pg_prepared_statements WHERE statement = '${sql.replace(/'/g, "''")}'`);
  await plain('SET plan_cache_mode = force_generic_plan');
  const plan = (await plain(`EXPLAIN EXECUTE "${rows[0].name as string}"('${endpoint}', '${event}')`)).rows.map((r) => r['QUERY PLAN']).join('\n');
  await plain('RESET plan_cache_mode');
  expect(plan).toMatch(/Index Only Scan using webhook_deliveries_pkey on webhook_deliveries/);
  expect(plan).not.toMatch(/webhook_deliveries_(endpoint_)?log/);
});

it("probes a webhook delivery by key for each event a claim reads, where the planner would read every row into a hash", async () => {
  const endpoint = '01900000-0000-7000-8000-00000000e002';
  await deliveries(endpoint, 20_000);
  await plain('ANALYZE webhook_deliveries');
  // As the claim's generic plan sees its events: thousands, where a claim reads a few hundred at most.
  const events = `(SELECT (lpad(to_hex(n), 8, '0') || '-0000-7000-8000-000000000000')::uuid AS id, '{}'::jsonb AS body, now() AS created_at,
    'member.joined'::text AS type, 1 AS era, '1'::xid8 AS xid FROM generate_series(19001, 24000) n) o`;
  const explain = async (sendable: string) =>
    (await plain(`EXPLAIN (VERBOSE) SELECT count(*) FILTER (WHERE s) FROM (SELECT ${sendable} AS s FROM ${events} OFFSET 0) z`)).rows.map((r) => r['QUERY PLAN']).join('\n');
  // What the probe guards against: the same test without it is read whole, into a hash.
  expect(await explain(`NOT ${hasRowSql(`'${endpoint}'::uuid`, 'o')}`)).toMatch(/hashed SubPlan/);
  const plan = await explain(sendableSql(`'${endpoint}'::uuid`, 'o', '7'));
  expect(plan).not.toMatch(/hashed/);
  expect(plan).toMatch(/Index Only Scan using webhook_deliveries_pkey on (public\.)?webhook_deliveries/);
  const sendable = await plain(`SELECT count(*) FILTER (WHERE s)::int AS n FROM (SELECT ${sendableSql(`'${endpoint}'::uuid`, 'o', '7')} AS s FROM ${events} OFFSET 0) z`);
  // Events 19001-20000 have their rows; the endpoint is not there, so it receives none of the rest.
  expect(sendable.rows).toEqual([{ n: 0 }]);
});
