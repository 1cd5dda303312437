/**
 * How the readers find an event in the journal (migration JournalHistory, docs/design/write-path.md
 * section 3.1): its row is keyed by the event id's 12 bytes and four zero bytes.
 */

/** The journal key of the event whose 24-hex id the SQL expression `eventId` holds. */
export const eventKeySql = (eventId: string): string => `(${eventId} || '00000000')::uuid`;

/** The event id of journal row `j`: the first 12 bytes of its key. */
export const eventIdSql = (j: string): string => `left(replace(${j}.id::text, '-', ''), 24)`;

/**
 * Journal row `j` holds an event still kept. `type` is what the feed indexes hold; an expiry takes
 * it off with the body (since 1.3.0: 1.2.0's kept the type, which JournalHistory then took off).
 */
export const isEventSql = (j: string): string => `${j}.type IS NOT NULL AND ${j}.body IS NOT NULL`;

/** The event type of journal row `j`, null once the event expired (as when its row was gone). */
export const eventTypeSql = (j: string): string => `CASE WHEN ${j}.body IS NOT NULL THEN ${j}.type END`;

/**
 * The CTE `games`: each game that has an event in the journal's feed indexes, one index step each on
 * journal_game_feed (a skip scan; ends with a NULL row). For WITH RECURSIVE.
 */
export const GAMES_WITH_EVENTS = `games AS (
    (SELECT game_id FROM journal WHERE type IS NOT NULL ORDER BY game_id LIMIT 1)
    UNION ALL
    SELECT (SELECT o.game_id FROM journal o WHERE o.type IS NOT NULL AND o.game_id > g.game_id ORDER BY o.game_id LIMIT 1)
    FROM games g WHERE g.game_id IS NOT NULL
  )`;
