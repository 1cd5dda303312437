import { Logger } from '@nestjs/common';
import { GAMES_WITH_EVENTS } from './journal-sql';

/** Anything that runs one statement: a pg client or a TypeORM query runner. */
interface Queryable {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

const logger = new Logger('FeedEra');

/** What is said, once, when a restore is detected. */
export const newEraMessage = (era: number): string =>
  `this database holds events written in another cluster (it was restored from a backup): new events start feed era ${era}, after every restored one`;

/** Where that is said: the app's log by default; the boot, which runs before the app's logger exists, passes its own. */
export type EraAnnouncer = (era: number) => void;
const toLog: EraAnnouncer = (era) => logger.warn(newEraMessage(era));

/**
 * Whether the database holds an event of the current era written by a transaction its cluster has
 * not reached (an id at or above the next one it will assign): the rows were restored from another
 * cluster, whose counter was further on. One probe at the end of each game's feed index.
 */
const RESTORED = `
  WITH RECURSIVE ${GAMES_WITH_EVENTS}
  SELECT s.era, EXISTS (
    SELECT 1 FROM games g CROSS JOIN LATERAL (
      SELECT o.xid FROM journal o WHERE o.type IS NOT NULL AND o.game_id = g.game_id AND o.era = s.era ORDER BY o.xid DESC LIMIT 1
    ) newest
    WHERE newest.xid >= pg_snapshot_xmax(pg_current_snapshot())
  ) AS restored
  FROM feed_state s`;

/** How long the switch waits for the transactions writing the journal: a connection fails rather than queue every write behind it. */
const SWITCH_LOCK_TIMEOUT = '5s';

const rowsOf = <R>(result: unknown): R[] => (Array.isArray(result) ? result : (result as { rows: R[] }).rows);

/** The era new events get: the start-up line names it, so a restore's new era shows in the log. */
export async function currentEra(db: Queryable): Promise<number> {
  const [state] = rowsOf<{ era: number }>(await db.query('SELECT era FROM feed_state'));
  return state.era;
}

/**
 * Starts a new feed era when the database was restored from another cluster (docs/event-feed.md):
 * new events then sort after every restored one, which keep their ids and their order. Run on every
 * new connection before it is used, and at boot once the migrations are applied; returns the era.
 *
 * The switch rewrites the era column's default of the journal and of the notifications, so an insert
 * can never pick up a stale one (the default comes from the catalog, which a lock acquisition
 * refreshes, not from a snapshot), and waits for every transaction that touches either table: no
 * row of the old era commits after it. The
 * row lock on feed_state, taken first, serialises connections that detect the restore together.
 */
export async function startNewEraIfRestored(db: Queryable, announce: EraAnnouncer = toLog): Promise<number | null> {
  let state: { era: number; restored: boolean };
  try {
    [state] = rowsOf<{ era: number; restored: boolean }>(await db.query(RESTORED));
  } catch (err) {
    // Not migrated yet: the boot applies the migrations, then checks again.
    if ((err as { code?: string }).code === '42P01') return null;
    throw err;
  }
  if (!state.restored) return state.era;
  await db.query('BEGIN');
  try {
    await db.query('SELECT era FROM feed_state FOR UPDATE');
    await db.query(`SET LOCAL lock_timeout = '${SWITCH_LOCK_TIMEOUT}'`);
    const [again] = rowsOf<{ era: number; restored: boolean }>(await db.query(RESTORED));
    if (again.restored) {
      const era = again.era + 1;
      // Players' notifications are streamed in the same order (EXTENSIONS X9). IF EXISTS: a database
      // not yet migrated that far has none; the migration that creates the table reads the era.
      await db.query(`ALTER TABLE IF EXISTS notifications ALTER COLUMN era SET DEFAULT ${era}`);
      // The journal's changes without an event take its default; those with one copy their event's.
      await db.query(`ALTER TABLE IF EXISTS journal ALTER COLUMN era SET DEFAULT ${era}`);
      await db.query('UPDATE feed_state SET era = $1', [era]);
      announce(era);
    }
    await db.query('COMMIT');
    return again.restored ? again.era + 1 : again.era;
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
