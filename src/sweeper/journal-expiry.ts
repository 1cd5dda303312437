import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';
import { GAMES_WITH_EVENTS } from '../db/journal-sql';

/**
 * What an event's expiry leaves of its journal row when the row keeps an audit entry: no event, its
 * type included, so that the row leaves the feed indexes (their predicate is the type) and no read of
 * a feed from its start walks past it. A row without an audit entry goes.
 */
const EXPIRED_EVENT = 'type = NULL, body = NULL, trace_context = NULL';

/**
 * One batch ($1 the retention in days, $2 the batch size): per game whose first event in feed order
 * is past the window, its first events in that order, those past the window expired. A game whose
 * first event is recent costs one index probe. Feed order follows time but for transactions that
 * ran long, so an older event behind a newer one waits until that one expires too; readers never
 * serve an event past the window (they test its time), so this only delays the storage's release.
 * Rows another transaction holds are skipped: the next sweep takes them.
 */
const EXPIRE_BATCH = `
  WITH RECURSIVE ${GAMES_WITH_EVENTS}, heads AS (
    SELECT e.id FROM games g
    CROSS JOIN LATERAL (
      SELECT o.created_at FROM journal o WHERE o.type IS NOT NULL AND o.game_id = g.game_id ORDER BY o.era, o.xid, o.seq LIMIT 1
    ) first
    CROSS JOIN LATERAL (
      SELECT o.id, o.created_at FROM journal o WHERE o.type IS NOT NULL AND o.game_id = g.game_id ORDER BY o.era, o.xid, o.seq LIMIT $2
    ) e
    WHERE g.game_id IS NOT NULL AND first.created_at < now() - make_interval(days => $1) AND e.created_at < now() - make_interval(days => $1)
    LIMIT $2
  ), due AS MATERIALIZED (
    SELECT j.id, j.action IS NULL AS alone FROM journal j
    WHERE j.id IN (SELECT id FROM heads) AND j.type IS NOT NULL AND j.created_at < now() - make_interval(days => $1)
    FOR UPDATE OF j SKIP LOCKED
  ), gone AS (
    DELETE FROM journal j USING due d WHERE j.id = d.id AND d.alone RETURNING 1
  ), expired AS (
    UPDATE journal j SET ${EXPIRED_EVENT} FROM due d WHERE j.id = d.id AND NOT d.alone RETURNING 1
  )
  SELECT ((SELECT count(*) FROM gone) + (SELECT count(*) FROM expired))::int AS n`;

/**
 * Expires the journal's events past the retention window, in batches each its own statement outside
 * any transaction.
 */
export async function expireJournalEvents(m: EntityManager, retentionDays: number, batch: number): Promise<{ expired: number; batches: number }> {
  let expired = 0;
  let batches = 0;
  for (;;) {
    const [{ n }] = await sqlRows<{ n: number }>(m, EXPIRE_BATCH, [retentionDays, batch]);
    batches++;
    expired += n;
    if (n === 0) return { expired, batches };
  }
}
