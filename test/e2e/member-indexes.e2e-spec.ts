import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { MemberSpansInOrder1767500000000 } from '../../migrations/1767500000000-member-spans-in-order';
import { growthWindow } from '../../src/analytics/analytics-window';
import { AnalyticsRepository } from '../../src/analytics/analytics.repository';
import type { ReadSource } from '../../src/db/replica/read-source';
import { MembersRepository } from '../../src/members/members.repository';
import { captureDataSource } from '../helpers/statement-capture';
import { onFreshDatabase } from '../helpers/query-runner';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { planNodes } from '../helpers/plans';

/**
 * The member row's indexes since MemberSpansInOrder1767500000000: one index serves a group's
 * members newest first and the analytics' membership spans, and each statement that used the two
 * it replaced walks it the same way (on the real plan, with statistics).
 */

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Alias?: string;
  Output?: string[];
  Filter?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Plans?: PlanNode[];
}
let db: TestDatabase;
const game = randomUUID();
const groups = Array.from({ length: 2_000 }, () => randomUUID());
beforeAll(async () => {
  db = await createTestDatabase();
  await db.query(`INSERT INTO games (id, name) VALUES ($1, 'member indexes')`, [game]);
  await db.query(`INSERT INTO groups (id, game_id, kind, name, visibility) SELECT g, $1, 'guild', 'g' || i, 'public' FROM unnest($2::uuid[]) WITH ORDINALITY AS x(g, i)`, [game, groups]);
  // 20,000 memberships over 2,000 groups, one of them holding half, a fifth of them over, each with some
  // metadata: rows as wide as a game's, so the heap costs what it does there against the index.
  await db.query(
    `WITH u AS (INSERT INTO users (id) SELECT gen_random_uuid() FROM generate_series(1, 20000) RETURNING id),
          n AS (SELECT id, row_number() OVER () AS i FROM u)
     INSERT INTO members (id, group_id, user_id, external_user_id, status, joined_at, left_at, metadata)
     SELECT gen_random_uuid(), CASE WHEN n.i % 2 = 0 THEN ($1::uuid[])[1] ELSE ($1::uuid[])[1 + n.i % 2000] END, n.id, 'p' || n.i,
            CASE WHEN n.i % 5 = 0 THEN 'left' ELSE 'active' END, now() - n.i * interval '1 minute',
            CASE WHEN n.i % 5 = 0 THEN now() - n.i * interval '30 seconds' END,
            jsonb_build_object('bio', repeat(md5(n.i::text), 12))
     FROM n`,
    [groups],
  );
  await db.query('VACUUM ANALYZE members');
  await db.query('ANALYZE groups');
});
afterAll(() => db.drop());

async function planOf(statement: { sql: string; params: unknown[] }): Promise<PlanNode[]> {
  const [row] = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.params);
  return planNodes(row['QUERY PLAN'][0].Plan);
}
const onMembers = (plan: PlanNode[]) => plan.filter((n) => n['Relation Name'] === 'members' || n['Index Name']?.startsWith('members'));
/** Sorts of the members read (a member's roles are sorted for its JSON, which is not the page's order). */
const sortsOfMembers = (plan: PlanNode[]) => plan.filter((n) => n['Node Type'] === 'Sort' && onMembers(planNodes(n)).length > 0);

describe('the member indexes', () => {
  it('are the five a member write pays for, the two replaced gone', async () => {
    const rows = await db.query<{ name: string }>(`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'members'::regclass ORDER BY 1`);
    expect(rows.map((r) => r.name)).toEqual([
      'members_group_id_user_id_key',
      'members_group_joined',
      'members_group_status_order',
      'members_pkey',
      'members_timeout_due',
      'members_user_order',
    ]);
  });

  it.each([
    ['a first page', {}],
    ['a later page', { after: { joinedAt: new Date().toISOString(), id: randomUUID() } }],
  ])("%s of a group's members walks members_group_joined in order: no sort", async (_case, extra) => {
    const { ds, statements } = captureDataSource([]);
    await new MembersRepository().pageOfLiveGroup(ds, game, groups[0], { limit: 50, ...extra });
    const plan = await planOf(statements[0]);
    expect(onMembers(plan).map((n) => n['Index Name'])).toEqual(['members_group_joined']);
    expect(sortsOfMembers(plan)).toEqual([]);
  });

  it('a page of one status still walks the status index', async () => {
    const { ds, statements } = captureDataSource([]);
    await new MembersRepository().pageOfLiveGroup(ds, game, groups[0], { status: 'left', limit: 50 });
    expect(onMembers(await planOf(statements[0])).map((n) => n['Index Name'])).toEqual(['members_group_status_order']);
  });

  it("the analytics read no column of members that members_group_joined lacks: their scans can be index-only", async () => {
    const seen: { sql: string; params: unknown[] }[] = [];
    const m = { query: async (sql: string, params: unknown[]) => (seen.push({ sql, params }), []) } as unknown as EntityManager;
    const to = new Date();
    // growth reads through the manager it is given; the read source is only for session().
    await new AnalyticsRepository({} as ReadSource).growth(m, game, growthWindow(new Date(to.getTime() - 30 * 86_400_000), to), 5);
    expect(seen).toHaveLength(1);
    // Whether the planner reads the index alone depends on how much of the table a vacuum has marked
    // visible (at a game's size, bench/analytics.mjs's 1,000,000 members, it does); what holds
    // whatever the statistics is that every column the scans of members read is in the index.
    const [row] = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (VERBOSE, FORMAT JSON) ${seen[0].sql}`, seen[0].params);
    const scans = onMembers(planNodes(row['QUERY PLAN'][0].Plan)).filter((n) => n['Relation Name'] === 'members');
    expect(scans.length).toBeGreaterThanOrEqual(2);
    const read = new Set(
      scans.flatMap((n) =>
        [...(n.Output ?? []), n['Index Cond'] ?? '', n.Filter ?? '', n['Recheck Cond'] ?? ''].flatMap((e) => [...e.matchAll(new RegExp(`\\b${n.Alias}\\.(\\w+)`, 'g'))].map((x) => x[1])),
      ),
    );
    const [{ columns }] = await db.query<{ columns: string[] }>(
      `SELECT array_agg(a.attname::text ORDER BY a.attname) AS columns FROM pg_index i
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
       WHERE i.indexrelid = 'members_group_joined'::regclass`,
    );
    expect(columns).toEqual(['group_id', 'id', 'joined_at', 'left_at', 'status']);
    expect([...read].filter((c) => !columns.includes(c))).toEqual([]);
    expect(read).toEqual(new Set(['group_id', 'joined_at', 'left_at']));
  });
});

describe('the migration', () => {
  const indexes = async (q: { query: (sql: string) => Promise<{ name: string }[]> }) =>
    (await q.query(`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'members'::regclass AND indexrelid::regclass::text LIKE 'members_group_%' ORDER BY 1`)).map((r) => r.name);

  it('its down builds the two indexes again and drops the merged one; its up, run twice, merges them', async () => {
    await onFreshDatabase(async (q) => {
      await new MemberSpansInOrder1767500000000().down(q);
      expect(await indexes(q)).toEqual(['members_group_id_user_id_key', 'members_group_order', 'members_group_spans', 'members_group_status_order']);
      await new MemberSpansInOrder1767500000000().up(q);
      await new MemberSpansInOrder1767500000000().up(q);
      expect(await indexes(q)).toEqual(['members_group_id_user_id_key', 'members_group_joined', 'members_group_status_order']);
    });
  });
});
