import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';
import { NOTIFICATIONS_CHANNEL } from './notification-channel';

/** EXTENSIONS X9: a player keeps at most their newest this many. */
export const NOTIFICATIONS_KEPT_PER_PLAYER = 1000;
/** Notifications removed per statement: each batch commits on its own, so no lock is held for long. */
export const NOTIFICATION_SWEEP_BATCH = 5000;
/**
 * The players the cap is checked for: those notified within this long (two sweeps' worth, so a
 * late or skipped sweep loses none). Only a new notification takes a player over the cap.
 */
export const CAP_CHECK_WINDOW_HOURS = 2;

/**
 * The smallest uuidv7 of the millisecond of the timestamp `ts` (SQL): a notification's id is made
 * when it is staged (src/common/ids.ts), so the ids below it are those of older ones, found on the
 * primary key without an index of their own.
 */
const uuidv7Floor = (ts: string): string =>
  `(SELECT (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-0000-0000-000000000000')::uuid
    FROM (SELECT lpad(to_hex(floor(extract(epoch FROM ${ts}) * 1000)::bigint), 12, '0') AS h) f)`;

/**
 * What a batch removed (`gone`: the deleted rows' game_id, user_id and `unread`), counted, with a
 * `removed` signal (notification-channel.ts) for each player who lost unread ones: sent with the
 * statement's commit, it drops their unread counts from every instance's cache.
 */
const removedAndSignalled = (gone: string): string =>
  `SELECT (SELECT count(*) FROM ${gone})::int AS removed,
     (SELECT count(pg_notify('${NOTIFICATIONS_CHANNEL}', jsonb_build_object('t', 'removed', 'g', p.game_id, 'u', p.user_id)::text))
      FROM (SELECT DISTINCT game_id, user_id FROM ${gone} WHERE unread) p) AS signalled`;

const GONE = 'RETURNING game_id, user_id, read_at IS NULL AS unread';

/**
 * Removes the notifications older than NOTIFICATION_RETENTION_DAYS, oldest first on the primary
 * key, one batch per statement outside any transaction (each signals its players' removals with
 * its commit); `created_at` decides, the id only bounds the walk. Rows another transaction holds
 * (a mark, a dismissal) are skipped, not waited for: the next sweep takes them.
 */
export async function removeExpiredNotifications(m: EntityManager, retentionDays: number, batch = NOTIFICATION_SWEEP_BATCH): Promise<number> {
  let removed = 0;
  for (;;) {
    const [row] = await sqlRows<{ removed: number }>(
      m,
      `WITH gone AS (
         DELETE FROM notifications WHERE id IN (
           SELECT n.id FROM notifications n
           WHERE n.id < ${uuidv7Floor('now() - make_interval(days => $1)')} AND n.created_at < now() - make_interval(days => $1)
           ORDER BY n.id LIMIT $2 FOR UPDATE SKIP LOCKED
         ) ${GONE}
       ) ${removedAndSignalled('gone')}`,
      [retentionDays, batch],
    );
    removed += row.removed;
    if (row.removed < batch) return removed;
  }
}

/**
 * Removes what is beyond each player's newest NOTIFICATIONS_KEPT_PER_PLAYER (newest by the list's
 * order, on notifications_list), for the players notified within CAP_CHECK_WINDOW_HOURS (a range
 * of the primary key), one batch per statement outside any transaction (signalling as the
 * retention's does). The batch's ids are gathered first and deleted by the primary key: however
 * many rows the planner expects, it never joins them to a scan of the whole table.
 */
export async function removeNotificationsBeyondCap(
  m: EntityManager,
  kept = NOTIFICATIONS_KEPT_PER_PLAYER,
  batch = NOTIFICATION_SWEEP_BATCH,
): Promise<number> {
  let removed = 0;
  for (;;) {
    const [row] = await sqlRows<{ removed: number }>(
      m,
      `WITH recent AS MATERIALIZED (
         SELECT DISTINCT n.game_id, n.user_id FROM notifications n
         WHERE n.id >= ${uuidv7Floor(`now() - make_interval(hours => ${CAP_CHECK_WINDOW_HOURS})`)}
       ), gone AS (
         DELETE FROM notifications d WHERE d.id = ANY (ARRAY(
           SELECT x.id FROM recent p
           CROSS JOIN LATERAL (
             SELECT n.id FROM notifications n WHERE n.game_id = p.game_id AND n.user_id = p.user_id
             ORDER BY n.created_at DESC, n.id DESC OFFSET $1 LIMIT $2
           ) x
           LIMIT $2
         )) ${GONE}
       ) ${removedAndSignalled('gone')}`,
      [kept, batch],
    );
    removed += row.removed;
    if (row.removed < batch) return removed;
  }
}
