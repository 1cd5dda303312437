import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { journalKey } from '../common/ids';
import { SETTINGS } from '../config/settings.module';
import type { Settings } from '../config/settings';
import { eventBodySql, eventIdSql, GAMES_WITH_EVENTS, isEventSql } from '../db/journal-sql';
import { confirmedRows, sqlRows } from '../db/sql';
import type { SvcEvent } from './event';
import { comparePositions, FEED_START, parseSnapshot, positionOf, type FeedPosition, type TxSnapshot } from './feed-position';

/** An event as the feed reads it: the body webhooks receive, where it sits in the feed, and when it was stored. */
export interface FeedEvent {
  body: SvcEvent;
  position: FeedPosition;
  /** The row's created_at, in epoch ms: the retention sweep removes it by this time. */
  storedAt: number;
}

export interface FeedScope {
  gameId: string;
  /** A group's stream reads that group's events only (on its own index). */
  groupId?: string;
  types?: readonly string[] | null;
}

/** One game's cursor on this instance's live tail. */
export interface TailCursor {
  gameId: string;
  /** Where the tail reads on from. */
  position: FeedPosition;
  /** The furthest event this instance has sent a client of the game, which the database must still hold. */
  furthest: { position: FeedPosition; storedAt: number } | null;
}

/**
 * The horizon of the feed: the oldest transaction still in progress when the statement's snapshot
 * was taken. Every transaction below it has committed or rolled back, and every one that can still
 * commit has an id at or above it: rows below it are final, and no row can ever appear among them.
 * Transactions that pg_stat_activity shows in another database cannot write this table and are
 * left out, so a long transaction elsewhere on the server does not hold the feed back (sessions the
 * database user may not see count, which only delays). With none left, the snapshot's xmax.
 *
 * Readers that hand out or move positions take it only through horizonRows or confirmedRows
 * (db/sql.ts), which read the sessions just before the statement's snapshot: read after it, a
 * transaction of another database that ended in between would be in the snapshot and no longer
 * among the sessions, and would count, and the horizon could come out lower than one found a
 * moment before. A stream that replays up to
 * where its live tail is relies on never seeing less than the tail saw before it; a lower horizon
 * hid the event between them from it, and the stream never sent it.
 */
export const HORIZON = `(SELECT coalesce(
    (SELECT min(x) FROM pg_snapshot_xip(pg_current_snapshot()) AS x
     WHERE x::xid NOT IN (SELECT backend_xid FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND datname <> current_database())),
    pg_snapshot_xmax(pg_current_snapshot())))`;

/**
 * What a reader may return: every row of an earlier era (restored: final), and the current era's
 * rows below the horizon. As a row comparison, it bounds the feed index's range from above.
 */
const VISIBLE = (o: string) => `(${o}.era, ${o}.xid) < ((SELECT era FROM feed_state), ${HORIZON})`;

/**
 * How far the horizon holds readers back, in seconds: the age of the oldest committed event readers
 * cannot see yet (its creation time against now), 0 when every committed event is readable. It
 * grows for as long as the horizon is stuck, whether or not anything is written meanwhile; an event
 * of a transaction still open is not counted (it is not committed). Hidden rows sort at the end of
 * each game's feed index, so one probe per game finds them: the games are walked as the restore
 * check walks them (feed-era.ts), one index step each. The probe is ordered as that index: a plain
 * min(created_at) is planned on an index by time instead, which reads every event per game.
 */
export const HORIZON_LAG_SQL = `WITH RECURSIVE ${GAMES_WITH_EVENTS}, h AS MATERIALIZED (SELECT s.era, ${HORIZON} AS horizon FROM feed_state s)
  SELECT coalesce(greatest(0, extract(epoch FROM now() - min(hidden.at))), 0)::float8 AS lag
  FROM games g CROSS JOIN h CROSS JOIN LATERAL (
    SELECT min(x.created_at) AS at FROM (
      SELECT o.created_at FROM journal o
      WHERE o.type IS NOT NULL AND o.game_id = g.game_id AND (o.era, o.xid) >= (h.era, h.horizon)
      ORDER BY o.era, o.xid, o.seq
    ) x
  ) hidden
  WHERE g.game_id IS NOT NULL`;

interface Row {
  body: SvcEvent;
  era: number;
  xid: string;
  seq: string;
  stored_at: number;
}

const toEvent = (r: Row): FeedEvent => ({ body: r.body, position: positionOf(r), storedAt: r.stored_at });

/** A position's columns as the statements read them back. */
const POSITION = (o: string) => `${o}.era, ${o}.xid::text AS xid, ${o}.seq::text AS seq`;
/** The same double as extract's exact numeric cast to float8, at about a third of its cost a row. */
const STORED_AT = (o: string) => `date_part('epoch', ${o}.created_at) * 1000 AS stored_at`;

/** The feed's queries, each on a journal index whose order is the feed's: (game_id | group_id, era, xid, seq). */
@Injectable()
export class FeedRepository {
  constructor(
    private readonly ds: DataSource,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /** The position of an event of this game inside the retention window; null when gone, too old or another game's. */
  async positionOfEvent(gameId: string, eventId: string): Promise<FeedPosition | null> {
    const [row] = await sqlRows<{ era: number; xid: string; seq: string }>(
      this.ds.manager,
      `SELECT ${POSITION('o')} FROM journal o
       WHERE o.id = $1 AND o.game_id = $2 AND ${isEventSql('o')} AND o.created_at >= now() - make_interval(days => $3)`,
      [journalKey(eventId), gameId, this.settings.eventRetentionDays],
    );
    return row ? positionOf(row) : null;
  }

  /** Up to `limit` events of the scope after `after`, in feed order, below the horizon. */
  async page(scope: FeedScope, after: FeedPosition, limit: number): Promise<FeedEvent[]> {
    return (await this.pageRows<Row>(`${eventBodySql('p')} AS body, ${POSITION('p')}, ${STORED_AT('p')}`, scope, after, limit)).map(toEvent);
  }

  /**
   * The same page with each body as the JSON text Postgres holds: the pull feed passes it through
   * rather than parsing a thousand bodies only to serialise them again, and reads nothing else.
   */
  pageText(scope: FeedScope, after: FeedPosition, limit: number): Promise<{ id: string; json: string }[]> {
    return this.pageRows(`${eventIdSql('p')} AS id, (${eventBodySql('p')})::text AS json`, scope, after, limit);
  }

  private pageRows<R>(columns: string, scope: FeedScope, after: FeedPosition, limit: number): Promise<R[]> {
    const params: unknown[] = [scope.groupId ?? scope.gameId, after.xid.toString(), after.seq.toString(), limit, this.settings.eventRetentionDays, after.era];
    const scopeCondition = scope.groupId ? `o.group_id = $1 AND o.game_id = $7` : 'o.game_id = $1';
    if (scope.groupId) params.push(scope.gameId);
    let typeCondition = '';
    if (scope.types?.length) {
      params.push(scope.types);
      typeCondition = `AND o.type = ANY ($${params.length}::text[])`;
    }
    return confirmedRows<R>(
      this.ds,
      // The bodies are read out (detoasted, cast) only for the page, above the LIMIT: on a table
      // whose statistics lag behind (autovacuum off, or not yet run) the planner may sort every
      // event of the game instead of walking the index, and that must not also decode every body.
      // Ordered by the columns, not by the text the select list gives the same names.
      `SELECT ${columns} FROM (
         SELECT o.id, o.type, o.game_id, o.group_id, o.body, o.era, o.xid, o.seq, o.created_at FROM journal o
         WHERE ${scopeCondition} AND ${isEventSql('o')} AND (o.era, o.xid, o.seq) > ($6::int, $2::xid8, $3::bigint) AND ${VISIBLE('o')}
           AND o.created_at >= now() - make_interval(days => $5) ${typeCondition}
         ORDER BY o.era, o.xid, o.seq
         LIMIT $4
       ) p
       ORDER BY p.era, p.xid, p.seq`,
      params,
    );
  }

  /** The last event of the game below the horizon, and its id: a live-only reader starts after it. */
  async head(gameId: string): Promise<{ position: FeedPosition; id: string; storedAt: number } | null> {
    const [row] = await confirmedRows<{ id: string; era: number; xid: string; seq: string; stored_at: number }>(
      this.ds,
      `SELECT ${eventIdSql('o')} AS id, ${POSITION('o')}, ${STORED_AT('o')} FROM journal o
       WHERE o.game_id = $1 AND ${isEventSql('o')} AND ${VISIBLE('o')}
       ORDER BY o.era DESC, o.xid DESC, o.seq DESC LIMIT 1`,
      [gameId],
    );
    return row ? { position: positionOf(row), id: row.id, storedAt: row.stored_at } : null;
  }

  /** Which transactions have committed as of now, in which era: a live-only stream starts after them. */
  async snapshot(): Promise<TxSnapshot> {
    const [row] = await sqlRows<{ s: string; era: number }>(this.ds.manager, 'SELECT pg_current_snapshot()::text AS s, era FROM feed_state');
    return parseSnapshot(row.s, row.era);
  }

  /**
   * The live tail of several games in one round trip: up to `limit` new events per game; per game
   * whether committed events wait above the horizon (behind a transaction still open), in which case
   * nothing will announce them when that transaction ends without events of its own; and the games
   * whose furthest sent event the database no longer holds, though no retention sweep removed it:
   * the database went back in time (restored to an earlier point, or failed over to a replica that
   * had not received it), and what it writes next may sort before what the clients already have.
   */
  async tail(cursors: readonly TailCursor[], limit: number): Promise<{ events: Map<string, FeedEvent[]>; held: boolean; lost: Set<string> }> {
    const furthest = cursors.map((c) => c.furthest ?? { position: FEED_START, storedAt: 0 });
    const rows = await confirmedRows<Partial<Row> & { gameId: string; kind: 'event' | 'held' | 'lost' }>(
      this.ds,
      `WITH c AS (
         SELECT * FROM unnest($1::uuid[], $2::int[], $3::xid8[], $4::bigint[], $6::int[], $7::xid8[], $8::bigint[], $9::float8[])
           AS c(game_id, era, xid, seq, sent_era, sent_xid, sent_seq, sent_at)
       ), h AS MATERIALIZED (SELECT s.era, ${HORIZON} AS horizon FROM feed_state s)
       SELECT c.game_id AS "gameId", 'event' AS kind, ${eventBodySql('e')} AS body, ${POSITION('e')}, ${STORED_AT('e')}
       FROM c CROSS JOIN h CROSS JOIN LATERAL (
         SELECT o.id, o.type, o.game_id, o.group_id, o.body, o.era, o.xid, o.seq, o.created_at FROM journal o
         WHERE o.game_id = c.game_id AND ${isEventSql('o')} AND (o.era, o.xid, o.seq) > (c.era, c.xid, c.seq) AND (o.era, o.xid) < (h.era, h.horizon)
         ORDER BY o.era, o.xid, o.seq LIMIT $5
       ) e
       UNION ALL
       SELECT c.game_id, 'held', NULL, NULL, NULL, NULL, NULL
       FROM c CROSS JOIN h
       WHERE EXISTS (
         SELECT 1 FROM journal o
         WHERE o.game_id = c.game_id AND ${isEventSql('o')} AND (o.era, o.xid) >= (h.era, h.horizon) AND (o.era, o.xid, o.seq) > (c.era, c.xid, c.seq)
       )
       UNION ALL
       SELECT c.game_id, 'lost', NULL, NULL, NULL, NULL, NULL
       FROM c
       WHERE c.sent_era > 0 AND c.sent_at >= extract(epoch FROM now() - make_interval(days => $10)) * 1000
         AND NOT EXISTS (
           SELECT 1 FROM journal o WHERE o.game_id = c.game_id AND ${isEventSql('o')} AND (o.era, o.xid, o.seq) = (c.sent_era, c.sent_xid, c.sent_seq)
         )`,
      [
        cursors.map((c) => c.gameId),
        cursors.map((c) => c.position.era),
        cursors.map((c) => c.position.xid.toString()),
        cursors.map((c) => c.position.seq.toString()),
        limit,
        furthest.map((f) => f.position.era),
        furthest.map((f) => f.position.xid.toString()),
        furthest.map((f) => f.position.seq.toString()),
        furthest.map((f) => f.storedAt),
        this.settings.eventRetentionDays,
      ],
      (rows) => rows.some((r) => r.kind === 'event'),
    );
    const events = new Map<string, FeedEvent[]>();
    const lost = new Set<string>();
    let held = false;
    for (const r of rows) {
      if (r.kind === 'held') held = true;
      else if (r.kind === 'lost') lost.add(r.gameId);
      else {
        let list = events.get(r.gameId);
        if (!list) events.set(r.gameId, (list = []));
        list.push(toEvent(r as Row));
      }
    }
    // The lateral subquery is ordered, but the union gives no order guarantee: sort here.
    for (const list of events.values()) list.sort((a, b) => comparePositions(a.position, b.position));
    return { events, held, lost };
  }
}
