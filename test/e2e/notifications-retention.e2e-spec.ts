import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { uuidv7 } from '../../src/common/ids';
import { parseSignal } from '../../src/notifications/notification-channel';
import { removeExpiredNotifications, removeNotificationsBeyondCap } from '../../src/notifications/notification-retention';
import { SweeperService } from '../../src/sweeper/sweeper.service';
import { joinOk, postGroup } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { listenToNotifications, listNotifications } from '../helpers/notifications';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X9, what is kept: NOTIFICATION_RETENTION_DAYS (default 30) and at most the newest
 * 1,000 per player, enforced by the hourly sweep in batches that each commit on their own.
 */

const DAY = 86_400_000;

async function waitFor(done: () => boolean, what: string): Promise<void> {
  for (const until = Date.now() + 5000; !done(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > until) throw new Error(`waited 5 s for ${what}`);
  }
}

describe('notifications kept: retention and the 1,000 cap, by the sweeper (EXTENSIONS X9)', () => {
  let t: TestApp;
  let gameId: string;
  let auth: Record<string, string>;
  let groupId: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'kept'));
    groupId = (await postGroup(t, auth, { kind: 'guild', name: 'G', visibility: 'public' })).id;
  });
  afterAll(() => t.close());

  /** A player the game knows, and their internal id. */
  async function player(): Promise<{ userId: string; svcUserId: string }> {
    const userId = uid('p');
    await joinOk(t, auth, groupId, userId);
    const [row] = await t.db.query<{ user_id: string }>(`SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2`, [gameId, userId]);
    return { userId, svcUserId: row.user_id };
  }

  /** Notifications written `agesMs` ago (id and createdAt alike, as the unit of work makes them); their ids. */
  async function written(svcUserId: string, agesMs: number[]): Promise<string[]> {
    const now = Date.now();
    const rows = agesMs.map((age) => ({ id: uuidv7(now - age), created_at: new Date(now - age).toISOString() }));
    await t.db.query(
      `INSERT INTO notifications (id, game_id, user_id, kind, data, created_at)
       SELECT x.id, $1, $2, 'member.kicked', '{}', x.created_at FROM jsonb_to_recordset($3::jsonb) AS x(id uuid, created_at timestamptz)`,
      [gameId, svcUserId, JSON.stringify(rows)],
    );
    return rows.map((r) => r.id);
  }
  const idsOf = async (userId: string) => (await listNotifications(t, auth, userId, '?limit=100')).items.map((n) => n.id);
  const countOf = async (svcUserId: string) => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM notifications WHERE user_id = $1`, [svcUserId]))[0].n;
  const sweep = () => t.app.get(SweeperService).sweep();
  const manager = () => t.app.get(DataSource).manager;

  it('the sweep removes what is older than 30 days by default, and reports it', async () => {
    const { userId, svcUserId } = await player();
    const [old, older, young, fresh] = await written(svcUserId, [30 * DAY + 60_000, 90 * DAY, 29 * DAY, 1000]);
    const result = await sweep();
    expect(result).toMatchObject({ swept: true, notificationsRemoved: expect.any(Number) });
    expect(result.notificationsRemoved).toBeGreaterThanOrEqual(2);
    const left = await idsOf(userId);
    expect(left).toEqual([fresh, young]);
    expect(left).not.toEqual(expect.arrayContaining([old]));
    expect(left).not.toEqual(expect.arrayContaining([older]));
  });

  it('in batches, each its own statement; a row another transaction holds is left for the next sweep', async () => {
    const { svcUserId } = await player();
    const expired = await written(svcUserId, [40 * DAY, 40 * DAY + 1, 40 * DAY + 2, 40 * DAY + 3, 40 * DAY + 4]);
    const holder = new Client({ connectionString: t.db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM notifications WHERE id = $1 FOR UPDATE`, [expired[2]]);
      expect(await removeExpiredNotifications(manager(), 30, 2)).toBe(4);
      expect(await countOf(svcUserId)).toBe(1);
      await holder.query('ROLLBACK');
    } finally {
      await holder.end();
    }
    expect(await removeExpiredNotifications(manager(), 30, 2)).toBe(1);
    expect(await countOf(svcUserId)).toBe(0);
  });

  it('NOTIFICATION_RETENTION_DAYS sets the window', async () => {
    const short = await startTestApp({ NOTIFICATION_RETENTION_DAYS: '7' }, t.db);
    try {
      const { userId, svcUserId } = await player();
      const [, week] = await written(svcUserId, [6 * DAY, 7 * DAY + 60_000]);
      await short.app.get(SweeperService).sweep();
      expect(await idsOf(userId)).toHaveLength(1);
      expect(await idsOf(userId)).not.toContain(week);
    } finally {
      await short.close();
    }
  });

  it('a player keeps their newest 1,000: the sweep removes the oldest beyond, and touches no one under the cap', async () => {
    const over = await player();
    const under = await player();
    // Over: 1,004 written in the last hour, one a second, newest first.
    const ids = await written(over.svcUserId, Array.from({ length: 1004 }, (_, i) => 1000 + i * 1000));
    await written(under.svcUserId, Array.from({ length: 1000 }, (_, i) => 1000 + i * 1000));

    await sweep();
    expect(await countOf(over.svcUserId)).toBe(1000);
    expect(await countOf(under.svcUserId)).toBe(1000);
    const left = await t.db.query<{ id: string }>(`SELECT id FROM notifications WHERE user_id = $1 ORDER BY created_at DESC, id DESC`, [over.svcUserId]);
    expect(left.map((r) => r.id)).toEqual(ids.slice(0, 1000));
  });

  it("signals 'removed' with each batch's commit, once per player who lost unread ones, none for one who lost only read ones", async () => {
    const unread = await player();
    const read = await player();
    await written(unread.svcUserId, [40 * DAY, 40 * DAY + 1, 40 * DAY + 2]);
    await written(read.svcUserId, [40 * DAY, 40 * DAY + 1]);
    await t.db.query(`UPDATE notifications SET read_at = now() WHERE user_id = $1`, [read.svcUserId]);
    const heard = await listenToNotifications(t.db.url);
    try {
      expect(await removeExpiredNotifications(manager(), 30, 2)).toBeGreaterThanOrEqual(5);
      await waitFor(() => heard.payloads.some((p) => p.includes(unread.svcUserId)), 'the removal of unread ones');
      // A batch's signals come with its commit; the last batch has committed: nothing more is on the way.
      await new Promise((r) => setTimeout(r, 200));
      const signals = heard.payloads.map((p) => parseSignal(p));
      // Batches of 2 over 5 rows: their 3 span two or three batches, each signalling them once.
      const theirs = signals.filter((s) => s?.u === unread.svcUserId);
      expect(theirs.length === 2 || theirs.length === 3).toBe(true);
      expect(new Set(theirs.map((s) => JSON.stringify(s)))).toEqual(new Set([JSON.stringify({ t: 'removed', g: gameId, u: unread.svcUserId })]));
      expect(signals.filter((s) => s?.u === read.svcUserId)).toEqual([]);
    } finally {
      await heard.close();
    }
  });

  it('the cap goes in batches too', async () => {
    // Alone in the table: a cap of 10 would trim the players above too.
    await t.db.query('DELETE FROM notifications');
    const { svcUserId } = await player();
    await written(svcUserId, Array.from({ length: 15 }, (_, i) => 1000 + i * 1000));
    expect(await removeNotificationsBeyondCap(manager(), 10, 2)).toBe(5);
    expect(await countOf(svcUserId)).toBe(10);
    expect(await removeNotificationsBeyondCap(manager(), 10, 2)).toBe(0);
  });
});
