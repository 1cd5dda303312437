import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SETTINGS } from '../config/settings.module';
import type { Settings } from '../config/settings';
import { sqlRows } from '../db/sql';
import type { SvcEvent } from './event';
import { parseSnapshot, positionOf, type FeedPosition, type TxSnapshot } from './feed-position';

/** An event as the feed reads it: the body webhooks receive, and where it sits in the feed. */
export interface FeedEvent {
  body: SvcEvent;
  position: FeedPosition;
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
  position: FeedPosition;
}

/**
 * The horizon of the feed: the oldest transaction still in progress when the statement's snapshot
 * was taken. Every transaction below it has committed or rolled back, and every one that can still
 * commit has an id at or above it: rows below it are final, and no row can ever appear among them.
 * Transactions that pg_stat_activity shows in another database cannot write this table and are
 * left out, so a long transaction elsewhere on the server does not hold the feed back (sessions the
 * database user may not see count, which only delays). With none left, the snapshot's xmax.
 */
const HORIZON = `(SELECT coalesce(
    (SELECT min(x) FROM pg_snapshot_xip(pg_current_snapshot()) AS x
     WHERE x::xid NOT IN (SELECT backend_xid FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND datname <> current_database())),
    pg_snapshot_xmax(pg_current_snapshot())))`;

interface Row {
  body: SvcEvent;
  xid: string;
  seq: string;
}

const toEvent = (r: Row): FeedEvent => ({ body: r.body, position: positionOf(r) });

/** The feed's queries, each on an index whose order is the feed's: (game_id | group_id, xid, seq). */
@Injectable()
export class FeedRepository {
  constructor(
    private readonly ds: DataSource,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /** The position of an event of this game inside the retention window; null when gone, too old or another game's. */
  async positionOfEvent(gameId: string, eventId: string): Promise<FeedPosition | null> {
    const [row] = await sqlRows<{ xid: string; seq: string }>(
      this.ds.manager,
      `SELECT xid::text AS xid, seq::text AS seq FROM outbox_events
       WHERE id = $1 AND game_id = $2 AND created_at >= now() - make_interval(days => $3)`,
      [eventId, gameId, this.settings.eventRetentionDays],
    );
    return row ? positionOf(row) : null;
  }

  /** Up to `limit` events of the scope after `after`, in feed order, below the horizon. */
  async page(scope: FeedScope, after: FeedPosition, limit: number): Promise<FeedEvent[]> {
    return (await this.pageRows<Row>('p.body', scope, after, limit)).map(toEvent);
  }

  /**
   * The same page with each body as the JSON text Postgres holds: the pull feed passes it through
   * rather than parsing a thousand bodies only to serialise them again.
   */
  pageText(scope: FeedScope, after: FeedPosition, limit: number): Promise<{ id: string; json: string }[]> {
    return this.pageRows('p.id, p.body::text AS json', scope, after, limit);
  }

  private pageRows<R>(columns: string, scope: FeedScope, after: FeedPosition, limit: number): Promise<R[]> {
    const params: unknown[] = [scope.groupId ?? scope.gameId, after.xid.toString(), after.seq.toString(), limit, this.settings.eventRetentionDays];
    const scopeCondition = scope.groupId ? `o.group_id = $1 AND o.game_id = $6` : 'o.game_id = $1';
    if (scope.groupId) params.push(scope.gameId);
    let typeCondition = '';
    if (scope.types?.length) {
      params.push(scope.types);
      typeCondition = `AND o.type = ANY ($${params.length}::text[])`;
    }
    return sqlRows<R>(
      this.ds.manager,
      // The bodies are read out (detoasted, cast) only for the page, above the LIMIT: on a table
      // whose statistics lag behind (autovacuum off, or not yet run) the planner may sort every
      // event of the game instead of walking the index, and that must not also decode every body.
      // Ordered by the columns, not by the text the select list gives the same names.
      `SELECT ${columns}, p.xid::text AS xid, p.seq::text AS seq FROM (
         SELECT o.id, o.body, o.xid, o.seq FROM outbox_events o
         WHERE ${scopeCondition} AND (o.xid, o.seq) > ($2::xid8, $3::bigint) AND o.xid < ${HORIZON}
           AND o.created_at >= now() - make_interval(days => $5) ${typeCondition}
         ORDER BY o.xid, o.seq
         LIMIT $4
       ) p
       ORDER BY p.xid, p.seq`,
      params,
    );
  }

  /** The last event of the game below the horizon, and its id: a live-only reader starts after it. */
  async head(gameId: string): Promise<{ position: FeedPosition; id: string } | null> {
    const [row] = await sqlRows<{ id: string; xid: string; seq: string }>(
      this.ds.manager,
      `SELECT o.id, o.xid::text AS xid, o.seq::text AS seq FROM outbox_events o
       WHERE o.game_id = $1 AND o.xid < ${HORIZON}
       ORDER BY o.xid DESC, o.seq DESC LIMIT 1`,
      [gameId],
    );
    return row ? { position: positionOf(row), id: row.id } : null;
  }

  /** Which transactions have committed as of now: a live-only stream starts after them. */
  async snapshot(): Promise<TxSnapshot> {
    const [row] = await sqlRows<{ s: string }>(this.ds.manager, 'SELECT pg_current_snapshot()::text AS s');
    return parseSnapshot(row.s);
  }

  /**
   * The live tail of several games in one round trip: up to `limit` new events per game, and per
   * game whether committed events wait above the horizon (behind a transaction still open), in
   * which case nothing will announce them when that transaction ends without events of its own.
   */
  async tail(cursors: readonly TailCursor[], limit: number): Promise<{ events: Map<string, FeedEvent[]>; held: boolean }> {
    const rows = await sqlRows<Row & { gameId: string; held: boolean }>(
      this.ds.manager,
      `WITH c AS (
         SELECT * FROM unnest($1::uuid[], $2::xid8[], $3::bigint[]) AS c(game_id, xid, seq)
       ), h AS MATERIALIZED (SELECT ${HORIZON} AS horizon)
       SELECT c.game_id AS "gameId", e.body, e.xid::text AS xid, e.seq::text AS seq, false AS held
       FROM c CROSS JOIN h CROSS JOIN LATERAL (
         SELECT o.body, o.xid, o.seq FROM outbox_events o
         WHERE o.game_id = c.game_id AND (o.xid, o.seq) > (c.xid, c.seq) AND o.xid < h.horizon
         ORDER BY o.xid, o.seq LIMIT $4
       ) e
       UNION ALL
       SELECT c.game_id, NULL, NULL, NULL, true
       FROM c CROSS JOIN h
       WHERE EXISTS (
         SELECT 1 FROM outbox_events o
         WHERE o.game_id = c.game_id AND o.xid >= h.horizon AND (o.xid, o.seq) > (c.xid, c.seq)
       )`,
      [cursors.map((c) => c.gameId), cursors.map((c) => c.position.xid.toString()), cursors.map((c) => c.position.seq.toString()), limit],
    );
    const events = new Map<string, FeedEvent[]>();
    let held = false;
    for (const r of rows) {
      if (r.held) {
        held = true;
        continue;
      }
      let list = events.get(r.gameId);
      if (!list) events.set(r.gameId, (list = []));
      list.push(toEvent(r));
    }
    // The lateral subquery is ordered, but the union gives no order guarantee: sort here.
    for (const list of events.values()) list.sort((a, b) => (a.position.xid === b.position.xid ? cmp(a.position.seq, b.position.seq) : cmp(a.position.xid, b.position.xid)));
    return { events, held };
  }
}

const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
