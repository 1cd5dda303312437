import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { confirmedRows } from '../db/sql';
import { comparePositions, parseSnapshot, positionOf, type FeedPosition, type TxSnapshot } from '../events/feed-position';
import { HORIZON } from '../events/feed.repository';
import { internalIdSql } from '../identity/identity.repository';
import type { NotificationDto } from './dto/notification.dto';
import { NOTIFICATION_COLUMNS, type NotificationRow } from './notification-row';
import { toNotificationDto } from './notification-view';

/** A notification as the stream sends it, and where it sits in the feed order. */
export interface StreamedNotification {
  view: NotificationDto;
  position: FeedPosition;
  /** The recipient: internal id, in its game. */
  gameId: string;
  svcUserId: string;
}

/** Where a player's stream starts, read in one statement (one snapshot). */
export interface StreamStart {
  /** The player's internal id; null while the game has never seen them. */
  svcUserId: string | null;
  /** Which transactions had ended: a live-only stream skips what they wrote. */
  snapshot: TxSnapshot;
  /** The player's last notification below the horizon: a live-only stream names it first. */
  lastId: string | null;
  /** The last notification of any player below the horizon: a player's live tail reads on from there. */
  head: FeedPosition | null;
  /** The resume id's position, null when it names no notification of this player (or none was given). */
  after: FeedPosition | null;
}

/** One player's cursor on this instance's live tail. */
export interface PlayerCursor {
  gameId: string;
  /** Null until the game has seen the player: then the tail finds their id by `externalId`. */
  svcUserId: string | null;
  externalId: string;
  position: FeedPosition;
}

export interface TailRead {
  /** New notifications of the players asked about, in feed order. */
  items: StreamedNotification[];
  /** The last notification of any player below the horizon (null: none). */
  head: FeedPosition | null;
  /** Committed notifications of these players wait above the horizon, behind a transaction still open. */
  held: boolean;
  /** The database has not reached the transaction of `known`: it went back in time (failed over to a replica without it). */
  rewound: boolean;
  /** Players asked about by external id whom the game has now seen. */
  resolved: { gameId: string; externalId: string; svcUserId: string }[];
}

/** Rows of a page: NOTIFICATION_COLUMNS and the position. */
type Row = NotificationRow & { era: number; xid: string; seq: string };

const POSITION = (o: string) => `${o}.era, ${o}.xid::text AS xid, ${o}.seq::text AS seq`;

/** The current era and the horizon (src/events/feed.repository.ts), as the feed reads them: notifications follow the feed's order. */
const HORIZON_ROW = `SELECT s.era, ${HORIZON} AS horizon, pg_snapshot_xmax(pg_current_snapshot()) AS xmax FROM feed_state s`;

/** The last notification of any player below the horizon, backwards on notifications_tail. */
const HEAD = `SELECT n.era, n.xid, n.seq FROM notifications n
  WHERE (n.era, n.xid) < (h.era, h.horizon) ORDER BY n.era DESC, n.xid DESC, n.seq DESC LIMIT 1`;

/**
 * One player's notifications (`columns` of `n`) on their range of notifications_list: at most the
 * kept 1,000, which the caller filters by position and orders. Callers read it as a MATERIALIZED
 * CTE with no other condition: given a range of positions whose bound it cannot see (the
 * horizon), the planner would walk notifications_tail instead, testing every player's rows.
 */
const playerRange = (gameRef: string, userRef: string, columns: string): string =>
  `SELECT ${columns} FROM notifications n WHERE n.game_id = ${gameRef} AND n.user_id = ${userRef}`;

const toItem = (r: Row): StreamedNotification => ({ view: toNotificationDto(r), position: positionOf(r), gameId: r.gameId, svcUserId: r.svcUserId });

const headOf = (r: { head_era: number | null; head_xid: string | null; head_seq: string | null }): FeedPosition | null =>
  r.head_era === null ? null : positionOf({ era: r.head_era, xid: r.head_xid!, seq: r.head_seq! });

/**
 * The notification stream's reads (EXTENSIONS X9), in the feed's order (era, xid, seq) and below its
 * horizon, as the event feed reads the outbox: a notification is read only once every transaction
 * older than its own has ended, so a reader resuming after one never misses one committed late. The
 * live tail reads notifications_tail for every player with a stream on this instance in one
 * statement; a start or a replay reads one player's range of notifications_list.
 */
@Injectable()
export class NotificationFeedRepository {
  constructor(private readonly ds: DataSource) {}

  /** Where a stream of the player (external id) starts, and the position of its resume id when given. */
  async start(gameId: string, externalId: string, afterId: string | null): Promise<StreamStart> {
    const [row] = await confirmedRows<{
      svc_user_id: string | null;
      snapshot: string;
      era: number;
      last_id: string | null;
      head_era: number | null;
      head_xid: string | null;
      head_seq: string | null;
      after_era: number | null;
      after_xid: string | null;
      after_seq: string | null;
    }>(
      this.ds,
      `WITH who AS (SELECT ${internalIdSql('$1::uuid', '$2::text')} AS user_id),
         h AS MATERIALIZED (${HORIZON_ROW}),
         mine AS MATERIALIZED (${playerRange('$1', '(SELECT user_id FROM who)', 'n.id, n.era, n.xid, n.seq')})
       SELECT who.user_id AS svc_user_id, pg_current_snapshot()::text AS snapshot, h.era,
         (SELECT m.id FROM mine m WHERE (m.era, m.xid) < (h.era, h.horizon) ORDER BY m.era DESC, m.xid DESC, m.seq DESC LIMIT 1) AS last_id,
         head.era AS head_era, head.xid::text AS head_xid, head.seq::text AS head_seq,
         a.era AS after_era, a.xid::text AS after_xid, a.seq::text AS after_seq
       FROM who CROSS JOIN h
       LEFT JOIN LATERAL (${HEAD}) head ON true
       LEFT JOIN LATERAL (SELECT n.era, n.xid, n.seq FROM notifications n WHERE n.id = $3::uuid AND n.game_id = $1 AND n.user_id = who.user_id) a ON true`,
      [gameId, externalId, afterId],
      ([r]) => r.last_id !== null || r.head_era !== null,
    );
    return {
      svcUserId: row.svc_user_id,
      snapshot: parseSnapshot(row.snapshot, row.era),
      lastId: row.last_id,
      head: headOf(row),
      after: row.after_era === null ? null : positionOf({ era: row.after_era, xid: row.after_xid!, seq: row.after_seq! }),
    };
  }

  /** Up to `limit` notifications of the player after `after`, in feed order, below the horizon. */
  async page(gameId: string, svcUserId: string, after: FeedPosition, limit: number): Promise<StreamedNotification[]> {
    const rows = await confirmedRows<Row>(
      this.ds,
      `WITH mine AS MATERIALIZED (${playerRange('$1', '$2', 'n.*')})
       SELECT ${NOTIFICATION_COLUMNS}, ${POSITION('n')} FROM (
         SELECT * FROM mine n
         WHERE (n.era, n.xid, n.seq) > ($3::int, $4::xid8, $5::bigint) AND (n.era, n.xid) < ((SELECT era FROM feed_state), ${HORIZON})
         ORDER BY n.era, n.xid, n.seq
         LIMIT $6
       ) n
       ORDER BY n.era, n.xid, n.seq`,
      [gameId, svcUserId, after.era, after.xid.toString(), after.seq.toString(), limit],
    );
    return rows.map(toItem);
  }

  /**
   * The live tail of every player asked about, in one statement: up to `limit` new notifications
   * over them all, in feed order (each player's after its own position, the scan of
   * notifications_tail from the lowest); the head below the horizon, which the players' positions
   * move to once nothing of theirs is left before it; whether committed notifications of theirs
   * wait above the horizon (nothing will announce them when the older transaction ends); whether
   * the database went back before `known` (the furthest position this instance has read); and
   * the players the game has seen since their streams opened.
   */
  async tail(players: readonly PlayerCursor[], known: FeedPosition, limit: number): Promise<TailRead> {
    let from = players[0].position;
    for (const p of players) if (comparePositions(p.position, from) < 0) from = p.position;
    const rows = await confirmedRows<
      Partial<Row> & { head_era: number | null; head_xid: string | null; head_seq: string | null; held: boolean; rewound: boolean; resolved: [string, string, string][] | null }
    >(
      this.ds,
      `WITH c AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::xid8[], $6::bigint[]) AS c(game_id, user_id, external_id, era, xid, seq)
       ), p AS MATERIALIZED (
         SELECT c.game_id, coalesce(c.user_id, ${internalIdSql('c.game_id', 'c.external_id')}) AS user_id, c.external_id, c.era, c.xid, c.seq FROM c
       ), h AS MATERIALIZED (${HORIZON_ROW}),
       fresh AS MATERIALIZED (
         SELECT n.* FROM notifications n
         JOIN p ON p.game_id = n.game_id AND p.user_id = n.user_id AND (n.era, n.xid, n.seq) > (p.era, p.xid, p.seq)
         WHERE (n.era, n.xid, n.seq) > ($7::int, $8::xid8, $9::bigint) AND (n.era, n.xid) < ((SELECT era FROM h), (SELECT horizon FROM h))
         ORDER BY n.era, n.xid, n.seq
         LIMIT $10
       ),
       -- What waits above the horizon, whoever it is for: few rows, read on notifications_tail from
       -- the horizon (a bound the planner cannot see through otherwise reads the whole table).
       above AS MATERIALIZED (
         SELECT n.game_id, n.user_id FROM notifications n
         WHERE (n.era, n.xid) >= ((SELECT era FROM h), (SELECT horizon FROM h))
         ORDER BY n.era, n.xid, n.seq
         LIMIT $10
       ),
       -- One row, computed once (not once per notification of the answer).
       st AS MATERIALIZED (
         SELECT head.era AS head_era, head.xid::text AS head_xid, head.seq::text AS head_seq,
           EXISTS (SELECT 1 FROM above a JOIN p ON p.game_id = a.game_id AND p.user_id = a.user_id) AS held,
           (h.era = $11::int AND h.xmax <= $12::xid8) AS rewound,
           (SELECT json_agg(json_build_array(p.game_id, p.external_id, p.user_id)) FROM p
            WHERE p.external_id IS NOT NULL AND p.user_id IS NOT NULL) AS resolved
         FROM h LEFT JOIN LATERAL (${HEAD}) head ON true
       )
       SELECT st.*, f.* FROM st
       LEFT JOIN (SELECT ${NOTIFICATION_COLUMNS}, ${POSITION('n')} FROM fresh n) f ON true`,
      [
        players.map((p) => p.gameId),
        players.map((p) => p.svcUserId),
        players.map((p) => (p.svcUserId === null ? p.externalId : null)),
        players.map((p) => p.position.era),
        players.map((p) => p.position.xid.toString()),
        players.map((p) => p.position.seq.toString()),
        from.era,
        from.xid.toString(),
        from.seq.toString(),
        limit,
        known.era,
        known.xid.toString(),
      ],
      (rows) => rows.some((r) => r.id != null),
    );
    const [first] = rows;
    return {
      // The page is ordered inside, but the join gives no order guarantee: sort here.
      items: rows
        .filter((r) => r.id != null)
        .map((r) => toItem(r as Row))
        .sort((a, b) => comparePositions(a.position, b.position)),
      head: headOf(first),
      held: first.held,
      rewound: first.rewound,
      resolved: (first.resolved ?? []).map(([gameId, externalId, svcUserId]) => ({ gameId, externalId, svcUserId })),
    };
  }
}
