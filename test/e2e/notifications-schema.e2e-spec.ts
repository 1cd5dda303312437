import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { Notifications1766400000000 } from '../../migrations/1766400000000-notifications';
import { NotificationIndexesDropped1766900000000 } from '../../migrations/1766900000000-notification-indexes-dropped';
import { uuidv7 } from '../../src/common/ids';
import { removeExpiredNotifications, removeNotificationsBeyondCap } from '../../src/notifications/notification-retention';
import { NotificationFeedRepository } from '../../src/notifications/notification-feed.repository';
import { NotificationsRepository } from '../../src/notifications/notifications.repository';
import { UserErasureRepository } from '../../src/users/user-erasure.repository';
import { captureDataSource, routedDataSource } from '../helpers/statement-capture';
import { onFreshDatabase } from '../helpers/query-runner';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { planNodes } from '../helpers/plans';

/**
 * EXTENSIONS X9, the table: each statement of the routes and of the sweep walks the index made
 * for it (on the real plan, with statistics), and the migration gives new rows the feed era of
 * the database it runs on.
 */

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}
let db: TestDatabase;
const game = randomUUID();
const player = randomUUID();
beforeAll(async () => {
  db = await createTestDatabase();
  await db.query(`INSERT INTO games (id, name) VALUES ($1, 'plans')`, [game]);
  await db.query(`INSERT INTO users (id) VALUES ($1)`, [player]);
  await db.query(`INSERT INTO user_identities (game_id, external_id, user_id) VALUES ($1, 'me', $2)`, [game, player]);
  // 500 players of 40 each, and one of 1,200, most read, written over the last 30 days: as a game's table looks.
  const now = Date.now();
  const rows = Array.from({ length: 21_200 }, (_, i) => ({ i, id: uuidv7(now - i * 120_000), at: new Date(now - i * 120_000).toISOString() }));
  await db.query(
    `INSERT INTO notifications (id, game_id, user_id, kind, data, created_at, read_at)
     SELECT x.id, $1, CASE WHEN x.i < 1200 THEN $2::uuid ELSE md5((x.i % 500)::text)::uuid END,
            (ARRAY['member.kicked', 'invitation.received', 'member.roles_changed'])[1 + x.i % 3], '{}',
            x.at, CASE WHEN x.i % 10 <> 0 THEN now() END
     FROM jsonb_to_recordset($3::jsonb) AS x(i int, id uuid, at timestamptz)`,
    [game, player, JSON.stringify(rows)],
  );
  await db.query('ANALYZE notifications');
});
afterAll(() => db.drop());

/** The statements a repository call sends, answered with no rows. */
async function sent(call: (m: EntityManager) => Promise<unknown>): Promise<{ sql: string; params: unknown[] }> {
  const seen: { sql: string; params: unknown[] }[] = [];
  const m = { query: async (sql: string, params: unknown[]) => (seen.push({ sql, params }), []) } as unknown as EntityManager;
  await call(m).catch(() => undefined);
  expect(seen).toHaveLength(1);
  return seen[0];
}

async function indexesOn(statement: { sql: string; params: unknown[] }): Promise<{ indexes: string[]; sorts: number; seqScans: string[] }> {
  const [row] = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.params);
  if (process.env.SHOW_PLANS) console.log(JSON.stringify(row['QUERY PLAN'][0].Plan, null, 1));
  const all = planNodes(row['QUERY PLAN'][0].Plan);
  const onNotifications = all.filter((n) => n['Relation Name'] === 'notifications' || n['Index Name']?.startsWith('notifications'));
  return {
    indexes: [...new Set(onNotifications.map((n) => n['Index Name']).filter((n): n is string => n !== undefined))],
    sorts: all.filter((n) => n['Node Type'] === 'Sort').length,
    seqScans: all.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']!),
  };
}

describe('the plans of the notifications statements', () => {
  const repo = new NotificationsRepository();

  it.each([
    ['a page', 'notifications_list', { unread: false, limit: 50 }],
    ['a later page', 'notifications_list', { unread: false, limit: 50, after: { at: new Date().toISOString(), id: randomUUID() } }],
    ['an unread page', 'notifications_list', { unread: true, limit: 50 }],
    ['a page of some kinds', 'notifications_list', { unread: false, kinds: ['member.kicked' as const], limit: 50 }],
  ])('%s walks %s in order: no sort, no sequential scan', async (_case, index, filter) => {
    const { ds, statements } = captureDataSource([]);
    await repo.page(ds, game, 'me', filter);
    expect(statements).toHaveLength(1);
    const plan = await indexesOn(statements[0]);
    expect(plan).toEqual({ indexes: [index], sorts: 0, seqScans: [] });
  });

  it("the counts read the player's range of the list index", async () => {
    const plan = await indexesOn(await sent((m) => repo.unreadByKind(m, game, 'me')));
    expect(plan.indexes).toEqual(['notifications_list']);
    expect(plan.seqScans).toEqual([]);
  });

  it("a stream's start and its replay read the player's range of the list index, never the tail of every player's", async () => {
    const feed = (m: EntityManager) => new NotificationFeedRepository(routedDataSource((sql, params) => m.query(sql, params)));
    const start = await indexesOn(await sent((m) => feed(m).start(game, 'me', randomUUID())));
    // feed_state (a row) and pg_database (the horizon's test) are read whole; notifications never.
    expect(start.seqScans).not.toContain('notifications');
    // The tail's backward walk finds the last notification of any player (the stream's head): one row.
    expect(start.indexes.sort()).toEqual(['notifications_list', 'notifications_pkey', 'notifications_tail']);
    const sql = (await sent((m) => feed(m).start(game, 'me', null))).sql;
    expect(sql).toMatch(/mine AS MATERIALIZED \(SELECT [^)]* FROM notifications n WHERE n\.game_id = \$1 AND n\.user_id = \(SELECT user_id FROM who\)/);
    const replay = await indexesOn(await sent((m) => feed(m).page(game, player, { era: 1, xid: 1n, seq: 0n }, 100)));
    expect(replay.indexes).toEqual(['notifications_list']);
    expect(replay.seqScans).not.toContain('notifications');
  });

  it('marks and dismissals find the player by the list index or the primary key', async () => {
    for (const call of [
      (m: EntityManager) => repo.markIds(m, game, 'me', [randomUUID()]),
      (m: EntityManager) => repo.markAll(m, game, 'me'),
      (m: EntityManager) => repo.dismiss(m, game, 'me', randomUUID()),
    ]) {
      const plan = await indexesOn(await sent(call));
      expect(plan.seqScans).toEqual([]);
      expect(plan.indexes.length).toBeGreaterThan(0);
    }
  });

  it('the sweep walks the primary key for the old and the recent, and the list index per player', async () => {
    const retention = await indexesOn(await sent((m) => removeExpiredNotifications(m, 30)));
    expect(retention).toMatchObject({ indexes: ['notifications_pkey'], seqScans: [] });
    const cap = await indexesOn(await sent((m) => removeNotificationsBeyondCap(m)));
    expect(cap.seqScans).toEqual([]);
    expect(cap.indexes).toEqual(expect.arrayContaining(['notifications_pkey', 'notifications_list']));
  });
});

describe('the erasure', () => {
  it("finds the player's notifications by an index that starts at them, and those they caused by the actor index", async () => {
    const statement = await sent((m) => new UserErasureRepository().removeNotifications(m, { gameId: game, externalUserId: 'me', svcUserId: player, pseudonym: 'erased_x' }));
    const plan = await indexesOn(statement);
    expect(plan.seqScans).toEqual([]);
    expect(plan.indexes).toHaveLength(2);
    expect(plan.indexes).toContain('notifications_actor');
    expect(plan.indexes.find((i) => i !== 'notifications_actor')).toBe('notifications_list');
  });
});

describe('the migration', () => {
  const indexes = async (q: { query: (sql: string) => Promise<{ name: string }[]> }) =>
    (await q.query(`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'notifications'::regclass ORDER BY 1`)).map((r) => r.name);

  it('leaves a notification four index entries at most, and its down builds the two dropped again', async () => {
    expect(await indexes(db)).toEqual(['notifications_actor', 'notifications_list', 'notifications_pkey', 'notifications_tail']);
    await onFreshDatabase(async (q) => {
      await new NotificationIndexesDropped1766900000000().down(q);
      expect(await indexes(q)).toEqual(['notifications_actor', 'notifications_list', 'notifications_pkey', 'notifications_replay', 'notifications_tail', 'notifications_unread']);
      await new NotificationIndexesDropped1766900000000().up(q);
      await new NotificationIndexesDropped1766900000000().up(q);
      expect(await indexes(q)).toEqual(['notifications_actor', 'notifications_list', 'notifications_pkey', 'notifications_tail']);
    });
  });

  it('gives the table the feed era of the database, as a restore left it', async () => {
    await onFreshDatabase(async (q) => {
      await new Notifications1766400000000().down(q);
      await q.query(`UPDATE feed_state SET era = 3`);
      await new Notifications1766400000000().up(q);
      const [{ def }] = await q.query(
        `SELECT pg_get_expr(d.adbin, d.adrelid) AS def FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
         WHERE d.adrelid = 'notifications'::regclass AND a.attname = 'era'`,
      );
      expect(def).toBe('3');
    });
  });
});
