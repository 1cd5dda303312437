import type { Settings } from '../../src/config/settings';
import { FEED_START } from '../../src/events/feed-position';
import { FeedRepository } from '../../src/events/feed.repository';
import { routedDataSource } from '../helpers/statement-capture';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { planNodes } from '../helpers/plans';

/**
 * A feed page decodes only the bodies it returns. On a table the planner has no statistics for
 * (autovacuum off, or not yet run), it may sort every event of the game rather than walk the
 * index; decoding 10 kB bodies for all of them made one page of 50 cost 300 ms once the game had
 * 9 000 events (found by the soak). Checked on the real plan: nothing below the LIMIT casts a body.
 */
interface PlanNode {
  'Node Type': string;
  Output?: string[];
  Plans?: PlanNode[];
}

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

/** The SQL and parameters the repository sends, answered with no rows. */
function capture(): { repo: FeedRepository; sent: { sql: string; params: unknown[] }[] } {
  const sent: { sql: string; params: unknown[] }[] = [];
  const ds = routedDataSource(async (sql, params) => (sent.push({ sql, params }), []));
  return { repo: new FeedRepository(ds, { eventRetentionDays: 7 } as Settings), sent };
}

async function belowLimit(sql: string, params: unknown[]): Promise<PlanNode[]> {
  const [row] = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (VERBOSE, FORMAT JSON) ${sql}`, params);
  const limit = planNodes(row['QUERY PLAN'][0].Plan).find((n) => n['Node Type'] === 'Limit');
  expect(limit).toBeDefined();
  return (limit!.Plans ?? []).flatMap(planNodes);
}

it('a page of the pull feed casts bodies to text above the LIMIT only, whatever plan the statistics lead to', async () => {
  const { repo, sent } = capture();
  await repo.pageText({ gameId: '01a216ad-e538-7b11-8c01-ebfc5bc31299' }, FEED_START, 50);
  expect(sent).toHaveLength(1);
  for (const setting of ['enable_sort = on', 'enable_indexscan = off']) {
    // enable_indexscan = off stands for statistics that make sorting the whole game look cheap.
    await db.query(`SET ${setting}`);
    const below = await belowLimit(sent[0].sql, sent[0].params);
    await db.query('RESET ALL');
    expect(below.length).toBeGreaterThan(0);
    for (const n of below) for (const out of n.Output ?? []) expect(out).not.toMatch(/body\)::text/);
  }
});
