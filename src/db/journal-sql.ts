import { memberWholeSql } from './member-snapshot';

/**
 * How the readers find an event in the journal (migration JournalHistory, docs/design/write-path.md
 * section 3.1): its row is keyed by the event id's 12 bytes and four zero bytes.
 */

/** The journal key of the event whose 24-hex id the SQL expression `eventId` holds. */
export const eventKeySql = (eventId: string): string => `(${eventId} || '00000000')::uuid`;

/** The event id of journal row `j`: the first 12 bytes of its key. */
export const eventIdSql = (j: string): string => `left(replace(${j}.id::text, '-', ''), 24)`;

/** The millisecond of journal row `j`'s key (a uuidv7's first 48 bits) as toISOString writes it. */
const keyInstantSql = (j: string): string =>
  `to_char((timestamptz 'epoch' + ('x' || left(replace(${j}.id::text, '-', ''), 12))::bit(48)::bigint * interval '1 millisecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The event of journal row `j` as it was published (null once it expired). A body stored without
 * its id (a writer of release 1.11.0 or later: see storedEventBody) lacks the fields the row's
 * columns hold, which are added back: its id (the key's first 12 bytes), its type, its game, its
 * group when it has one, and its instant (the key's millisecond); and a member snapshot stored
 * short (a writer of release 1.13.0 or later: src/db/member-snapshot.ts) is made whole. jsonb keeps
 * one order of keys whatever the order they are put in, so the text is the one the whole body had.
 */
export const eventBodySql = (j: string): string =>
  // One object of the five (the group's null dropped: every other field is never null) and one
  // concatenation: a third less work a row than adding the group apart, for a feed page of 1,000.
  `CASE WHEN ${j}.body ? 'id' THEN ${j}.body ELSE jsonb_strip_nulls(jsonb_build_object('id', ${eventIdSql(j)}, 'type', ${j}.type, ` +
  `'gameId', ${j}.game_id, 'groupId', ${j}.group_id, 'occurredAt', ${keyInstantSql(j)})) || ${memberWholeSql(j, `${j}.body`)} END`;

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
