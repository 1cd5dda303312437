import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { preparedRows, sqlRows } from '../db/sql';
import { internalIdSql } from '../identity/identity.repository';
import type { NotificationKind } from './notification-kinds';
import { NOTIFICATION_LIST_COLUMNS, type NotificationListRow } from './notification-row';

/** The player whose notifications a statement reads or changes: $1 the game, $2 the external id (none for an id the game has never seen). */
const PLAYER = `n.game_id = $1 AND n.user_id = ${internalIdSql('$1', '$2')}`;

export interface NotificationFilter {
  unread: boolean;
  /** Only these kinds; undefined: every kind. */
  kinds?: readonly NotificationKind[];
  after?: { at: string; id: string };
  limit: number;
}

/** What a mark changed: the recipient's internal id (for the signal) and the rows marked. */
export interface Marked {
  svcUserId: string | null;
  ids: string[];
  /** The marking time, as stored in read_at. */
  at: Date;
}

/**
 * A player's notifications (EXTENSIONS X9). Each statement finds the player's internal id itself
 * (one probe of user_identities_external): a read or a mark is one round trip.
 */
@Injectable()
export class NotificationsRepository {
  /**
   * A page newest first, `limit + 1` rows, on notifications_list; read state and kinds filter what
   * the walk of the player's range meets (at most the kept 1,000). A named prepared statement per
   * shape of filter (planning cost more than running it), on the pool of `ds`; no probe per row for
   * the recipient's external id: it is `userId`, which their identity matched exactly.
   */
  page(ds: DataSource, gameId: string, userId: string, f: NotificationFilter): Promise<NotificationListRow[]> {
    const params: unknown[] = [gameId, userId, f.limit + 1];
    const where = [PLAYER];
    if (f.unread) where.push('n.read_at IS NULL');
    if (f.kinds) {
      params.push(f.kinds);
      where.push(`n.kind = ANY ($${params.length}::text[])`);
    }
    if (f.after) {
      params.push(f.after.at, f.after.id);
      where.push(`(n.created_at, n.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    const shape = `${f.unread ? 'u' : ''}${f.kinds ? 'k' : ''}${f.after ? 'a' : ''}`;
    return preparedRows<NotificationListRow>(
      ds,
      `notifications_page_${shape}`,
      `SELECT ${NOTIFICATION_LIST_COLUMNS} FROM notifications n WHERE ${where.join(' AND ')} ORDER BY n.created_at DESC, n.id DESC LIMIT $3`,
      params,
    );
  }

  /**
   * The unread by kind, over the player's range of notifications_list (at most the kept 1,000),
   * with the player's internal id (the counts' cache keeps it): one row per kind with unread ones,
   * else one row with no kind; `svcUserId` null for a player the game has never seen.
   */
  unreadByKind(m: EntityManager, gameId: string, userId: string): Promise<{ svcUserId: string | null; kind: NotificationKind | null; n: number }[]> {
    return sqlRows(
      m,
      `SELECT who.user_id AS "svcUserId", n.kind, count(n.kind)::int AS n
       FROM (SELECT ${internalIdSql('$1', '$2')} AS user_id) who
       LEFT JOIN notifications n ON n.game_id = $1 AND n.user_id = who.user_id AND n.read_at IS NULL
       GROUP BY who.user_id, n.kind`,
      [gameId, userId],
    );
  }

  /** Marks read those of `ids` that are the player's and unread; the others count nothing. */
  async markIds(m: EntityManager, gameId: string, userId: string, ids: readonly string[]): Promise<Marked> {
    const rows = await sqlRows<{ id: string; svcUserId: string; at: Date }>(
      m,
      `UPDATE notifications n SET read_at = now() WHERE ${PLAYER} AND n.id = ANY ($3::uuid[]) AND n.read_at IS NULL
       RETURNING n.id, n.user_id AS "svcUserId", n.read_at AS at`,
      [gameId, userId, ids],
    );
    return { svcUserId: rows[0]?.svcUserId ?? null, ids: rows.map((r) => r.id), at: rows[0]?.at ?? new Date() };
  }

  /** Marks read every unread notification of the player; how many, and the marking time. */
  async markAll(m: EntityManager, gameId: string, userId: string): Promise<{ svcUserId: string | null; marked: number; at: Date }> {
    const [row] = await sqlRows<{ svcUserId: string | null; marked: number; at: Date }>(
      m,
      `WITH marked AS (UPDATE notifications n SET read_at = now() WHERE ${PLAYER} AND n.read_at IS NULL RETURNING n.user_id)
       SELECT (SELECT user_id FROM marked LIMIT 1) AS "svcUserId", (SELECT count(*) FROM marked)::int AS marked, now()::timestamptz(3) AS at`,
      [gameId, userId],
    );
    return row;
  }

  /** Deletes one notification of the player; null when it is not theirs. */
  async dismiss(m: EntityManager, gameId: string, userId: string, id: string): Promise<{ svcUserId: string; wasUnread: boolean } | null> {
    const [row] = await sqlRows<{ svcUserId: string; wasUnread: boolean }>(
      m,
      `DELETE FROM notifications n WHERE ${PLAYER} AND n.id = $3 RETURNING n.user_id AS "svcUserId", n.read_at IS NULL AS "wasUnread"`,
      [gameId, userId, id],
    );
    return row ?? null;
  }
}
