import { DataSource } from 'typeorm';
import { uuidv7 } from '../../src/common/ids';
import { positionOf } from '../../src/events/feed-position';
import { NotificationFeedRepository } from '../../src/notifications/notification-feed.repository';
import { routedDataSource } from '../helpers/statement-capture';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { planNodes } from '../helpers/plans';

/**
 * The notification stream's statements read notifications through their indexes, never the whole
 * table: the live tail of 1,000 players runs on every wake of every instance. A first version
 * tested what waits above the horizon with a bound the planner could not see through, and read
 * all of a 200,000-row table (3 s with JIT, on every poll). Checked on the real plans, on an
 * analyzed table of 100,000 notifications of 10,000 players.
 */
jest.setTimeout(60_000);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

let db: TestDatabase;
let ds: DataSource;
const GAME = uuidv7();
const player = (i: number) => `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`;

beforeAll(async () => {
  db = await createTestDatabase();
  ds = new DataSource({ type: 'postgres', url: db.url });
  await ds.initialize();
  await db.query(`INSERT INTO games (id, name) VALUES ($1, 'plans')`, [GAME]);
  await db.query(
    `INSERT INTO notifications (id, game_id, user_id, kind, data)
     SELECT svc_uuidv7(), $1, ('00000000-0000-7000-8000-' || lpad((g % 10000)::text, 12, '0'))::uuid, 'friend.request.accepted', '{}'
     FROM generate_series(1, 100000) g`,
    [GAME],
  );
  await db.query('ANALYZE notifications');
});
afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

/** The relations the plans of the statements the repository sends while `use` runs scan sequentially (feed_state, a row, among them). */
async function seqScans(use: (repo: NotificationFeedRepository) => Promise<unknown>): Promise<string[][]> {
  const sent: { sql: string; params: unknown[] }[] = [];
  await use(new NotificationFeedRepository(routedDataSource((sql, params) => (sent.push({ sql, params }), ds.manager.query(sql, params)))));
  expect(sent.length).toBeGreaterThan(0);
  const scans: string[][] = [];
  for (const { sql, params } of sent) {
    const [row] = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    scans.push(planNodes(row['QUERY PLAN'][0].Plan).filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']!));
  }
  return scans;
}

it('the live tail of 1,000 players, with 1,000 new notifications, reads none of the others', async () => {
  const [head] = await db.query<{ era: number; xid: string; seq: string }>(
    `SELECT n.era, n.xid::text AS xid, n.seq::text AS seq FROM notifications n ORDER BY n.era DESC, n.xid DESC, n.seq DESC LIMIT 1`,
  );
  await db.query(
    `INSERT INTO notifications (id, game_id, user_id, kind, data)
     SELECT svc_uuidv7(), $1, ('00000000-0000-7000-8000-' || lpad(g::text, 12, '0'))::uuid, 'friend.request.accepted', '{}' FROM generate_series(1, 1000) g`,
    [GAME],
  );
  const position = positionOf(head);
  const players = Array.from({ length: 1000 }, (_, i) => ({ gameId: GAME, svcUserId: player(i + 1), externalId: `p${i + 1}`, position }));
  let read = 0;
  const scans = await seqScans(async (repo) => (read = (await repo.tail(players, position, 1000)).items.length));

  expect(read).toBe(1000);
  expect(scans.flat().filter((relation) => relation === 'notifications')).toEqual([]);
});

it("a stream's start and a page of its replay read through the indexes", async () => {
  const scans = await seqScans(async (repo) => {
    const start = await repo.start(GAME, 'p1', uuidv7());
    await repo.page(GAME, player(1), start.head!, 1000);
  });

  expect(scans.flat().filter((relation) => relation === 'notifications')).toEqual([]);
});
