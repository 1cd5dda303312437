import { Client } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { ServiceClient } from '../../src/db/prepared-client';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import type { AttemptRecord, ClaimedDelivery } from '../../src/webhooks/webhook-rows';
import { DeliveryWindow, PER_ENDPOINT_IN_FLIGHT, WORKER_BATCH } from '../../src/webhooks/delivery-window';
import { PositionsRepository } from '../../src/webhooks/positions.repository';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { insertDeliveries } from '../helpers/webhook-deliveries';
import { bannedEventRows, insertEventsSql } from '../helpers/journal';
import { captureDataSource } from '../helpers/statement-capture';
import { planNodes } from '../helpers/plans';

/**
 * The worker's claim is planned on every call. Prepared once per connection, Postgres kept the
 * generic plan it made while webhook_deliveries was small (sequential scans), and every claim and
 * result write then read the whole table: 6 to 25 ms a call within minutes of load, growing with
 * the table. The result write is prepared, on a generic plan made without sequential scans, and
 * reaches the table by its key alone (the index of pending rows, whole, was the generic plan's first
 * choice while few rows were pending; the whole primary key, joined to the rows claimed or the
 * results, was the choice of a plan made while the table was empty). The repository runs here on a pool of one connection, so every call
 * reuses the same session, as a busy worker's calls do.
 */
let t: TestApp;
let single: DataSource;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  single = await new DataSource({ type: 'postgres', url: t.db.url, extra: { max: 1, Client: ServiceClient } }).initialize();
});
afterAll(async () => {
  await single?.destroy();
  await t.close();
});

const deliveredAll = (claimed: ClaimedDelivery[]): AttemptRecord[] =>
  claimed.map((c) => ({ id: c.id, attempts: c.attempts, outcome: 'delivered', status: 204, error: null, retryInMs: null, durationMs: 3 }));

const room = { endpointIds: [], inFlight: [], share: PER_ENDPOINT_IN_FLIGHT, fairFree: WORKER_BATCH, borrowFree: WORKER_BATCH };

/**
 * Sequential scans of webhook_deliveries by the one-connection session's work, run in one
 * transaction and read from the session's own counts: the table's totals also take other backends'
 * counts whenever those reach the statistics, which can be a second or more late. The flush first
 * empties what the session still holds of its earlier statements.
 */
const seqScansOf = async (work: (m: EntityManager) => Promise<unknown>): Promise<number> => {
  await single.query('SELECT pg_stat_force_next_flush()');
  return single.transaction(async (m) => {
    await work(m);
    const [row] = await m.query<{ n: string }[]>(`SELECT seq_scan AS n FROM pg_stat_xact_user_tables WHERE relname = 'webhook_deliveries'`);
    return Number(row.n);
  });
};

it('claims and result writes read webhook_deliveries by index however much it grew since the session first ran them', async () => {
  const g = await authedGame(t);
  const r = await t.http.post('/v1/webhooks').set(g.auth).send({ url: 'https://example.com/plans' });
  expect(r.status).toBe(201);
  const repo = t.app.get(WebhooksRepository);
  const m = single.manager;
  const due = () => t.db.query(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now() - interval '1 s', lease_until = NULL WHERE endpoint_id = $1`, [r.body.id]);

  // The session's first claim and result write find the table empty, as a new deployment's do:
  // their generic plans are made then, and kept.
  await t.db.query('ANALYZE webhook_deliveries');
  expect(await repo.claimDue(m, room)).toEqual([]);
  await repo.recordResults(m, deliveredAll([{ id: '00000000-0000-4000-8000-000000000000', attempts: 1 } as ClaimedDelivery]), 100);
  // Then, while the table is small, the session claims and records often.
  await insertDeliveries(t, r.body.id, 20);
  for (let i = 0; i < 8; i++) {
    await due();
    const claimed = await repo.claimDue(m, room);
    expect(claimed.length).toBeGreaterThan(0);
    await repo.recordResults(m, deliveredAll(claimed), 100);
  }

  // The table grows, with no ANALYZE in between; one claim and one result write follow.
  await insertDeliveries(t, r.body.id, 5000);
  await due();
  let claimed: ClaimedDelivery[] = [];
  const scans = await seqScansOf(async (tm) => {
    claimed = await repo.claimDue(tm, room);
    await repo.recordResults(tm, deliveredAll(claimed), 100);
  });
  expect(claimed).toHaveLength(WORKER_BATCH);
  expect(scans).toBe(0);
  // Each is one prepared statement of the session, never planned for its values: its plan is the
  // generic one kept from the small table, and it reads webhook_deliveries by an endpoint's due rows
  // or by keys, never an index whole.
  const kept: [string, string[]][] = [
    ['WITH flying AS (%), due AS (%FOR UPDATE OF d SKIP LOCKED%', [`'{}'`, `'{}'`, '10', '50', '50']],
    ['WITH r AS (%INSERT INTO webhook_delivery_attempts%', Array.from({ length: 17 }, (_, i) => (i === 7 ? '100' : `'{}'`))],
  ];
  for (const [like, args] of kept) {
    const statements = await single.query<{ name: string; generic: number; custom: number }[]>(
      `SELECT name, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement LIKE $1`,
      [like],
    );
    expect(statements).toEqual([{ name: expect.any(String), generic: 10, custom: 0 }]);
    const plan = await single.transaction(async (tm) => {
      await tm.query(`SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true)`);
      const [row] = await tm.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(`EXPLAIN (FORMAT JSON) EXECUTE "${statements[0].name}"(${args.join(', ')})`);
      return planNodes(row['QUERY PLAN'][0].Plan);
    });
    const reads = plan.filter((n) => n['Relation Name'] === 'webhook_deliveries' && n['Node Type'] !== 'ModifyTable');
    expect(reads.length).toBeGreaterThan(0);
    for (const n of reads) expect([n['Node Type'], n['Index Cond'] ?? n['Recheck Cond']]).toEqual([expect.stringMatching(/Index Scan|Bitmap Heap Scan/), expect.stringMatching(/^\(+(id|endpoint_id) = /)]);
  }
  const [{ delivered }] = await t.db.query<{ delivered: number }>(
    `SELECT count(*)::int AS delivered FROM webhook_deliveries WHERE id = ANY ($1::uuid[]) AND status = 'delivered'`,
    [claimed.map((c) => c.id)],
  );
  expect(delivered).toBe(WORKER_BATCH);
});

/**
 * The claim by position asks two questions of the feed index for each endpoint: are there events after
 * its position, and are there events at or above the horizon. Written as EXISTS, the planner made
 * them semi joins, and a generic plan made while the journal's statistics knew few events (a new
 * database, a burst of writes before autoanalyze) read the whole feed index of every game for
 * each, filtering on the game and the bound: a claim cost 10-46 ms a call and grew with the
 * journal (found by the bench: the claim was half of the database's statement time under joins).
 * Checked on the real generic plan, statistics taken before the events were written.
 */

const EVENTS = 3_000;

interface PlanNode {
  'Node Type'?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

it('a claim reads a few index pages whatever the feed holds, on a generic plan made from statistics older than its events', async () => {
  const a = await authedGame(t);
  const b = await authedGame(t);
  const created = await t.http.post('/v1/webhooks').set(a.auth).send({ url: 'https://example.com/claim-plan' });
  expect(created.status).toBe(201);
  const endpointId = (created.body as { id: string }).id;

  // Statistics of a journal with no events; then the endpoint's game writes events, and another
  // game after it (its events come later in the positions, after the endpoint's in the index).
  await t.db.query('ANALYZE journal');
  await t.db.query(insertEventsSql(bannedEventRows(EVENTS)), [a.gameId]);
  await t.db.query(insertEventsSql(bannedEventRows(EVENTS)), [b.gameId]);
  // The endpoint has sent everything: its position is its game's last event.
  await t.db.query(
    `UPDATE webhook_positions p SET era = o.era, xid = o.xid, seq = o.seq
     FROM (SELECT era, xid, seq FROM journal WHERE game_id = $1 AND type IS NOT NULL ORDER BY era DESC, xid DESC, seq DESC LIMIT 1) o
     WHERE p.endpoint_id = $2`,
    [a.gameId, endpointId],
  );

  const positions = t.app.get(PositionsRepository);
  const room = new DeliveryWindow().room();
  expect(await positions.claim(t.app.get(DataSource), room, 7)).toEqual({ deliveries: [], more: false, held: false, leased: false });

  const { ds, statements } = captureDataSource([]);
  await positions.claim(ds, room, 7);
  const [claim] = statements;
  const client = new Client({ connectionString: t.db.url });
  await client.connect();
  try {
    await client.query(`PREPARE claim AS ${claim.sql}`);
    await client.query('SET plan_cache_mode = force_generic_plan');
    await client.query('BEGIN');
    // EXECUTE takes its arguments as literals (a utility statement has no parameters): arrays of uuids and numbers, numbers.
    const literal = (v: unknown) => (Array.isArray(v) ? client.escapeLiteral(`{${v.join(',')}}`) : typeof v === 'number' ? String(v) : client.escapeLiteral(String(v)));
    const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE claim(${claim.params.map(literal).join(', ')})`);
    await client.query('ROLLBACK');
    const plan = rows[0]['QUERY PLAN'][0].Plan;
    // As semi joins, the questions read the endpoint's game's 3,000 entries and both games' 6,000
    // (260 pages); as probes from their bounds, none and a few pages.
    const feedRead = planNodes(plan).filter((n) => n['Index Name'] === 'journal_game_feed').reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
    expect(feedRead).toBeLessThan(10);
    expect(plan['Shared Hit Blocks'] + plan['Shared Read Blocks']).toBeLessThan(100);
  } finally {
    await client.end();
  }
});
