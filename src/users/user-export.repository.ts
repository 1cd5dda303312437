import { Injectable } from '@nestjs/common';
import type { EventEmitter } from 'node:events';
import { DataSource, type EntityManager, type QueryRunner } from 'typeorm';
import { AUDIT_COLUMNS } from '../audit/audit-row';
import { BAN_COLUMNS, HISTORY_COLUMNS } from '../bans/ban-rows';
import { eventBodySql } from '../db/journal-sql';
import { sqlRows } from '../db/sql';
import { ConnectionLoss } from '../db/transaction';
import { RELATIONSHIP_COLUMNS, TAG_COLUMNS } from '../friends/friend-rows';
import type { ListVisibility } from '../game-config/game-config';
import { externalKey } from '../identity/identity.repository';
import { INVITATION_COLUMNS, INVITATION_GROUP_COLUMNS } from '../invitations/invitation-row';
import { JOIN_REQUEST_COLUMNS } from '../join-requests/join-request-row';
import { MEMBER_COLUMNS } from '../members/member-row';
import { NOTIFICATION_COLUMNS } from '../notifications/notification-row';
import { epochMsSql, liveGrant } from '../permissions/grant-sql';
import { REPORT_COLUMNS } from '../reports/report-row';

/** Whose data is read: the external id, and the internal one when the game has an identity for it. */
export interface ExportSubject {
  gameId: string;
  userId: string;
  svcUserId: string | null;
  /** An id the journal's names may lack (mayBeUnindexed): its changes are found without that index. */
  unindexed?: boolean;
}

/** One section of the document: a statement read through a cursor, a batch at a time. */
export interface SectionQuery {
  sql: string;
  params: unknown[];
}

/** Rows per FETCH: a batch is one chunk of the answer, so memory holds a few batches at most. */
export const EXPORT_BATCH = 500;

/**
 * Every query of the export, each on an index that starts at the user (or, for the rows naming a
 * user only inside JSON, the GIN indexes of their names, migration MentionNames): none reads a whole
 * table, or the whole history of a game. Orders are oldest first throughout.
 *
 * A row's group is looked up by primary key, row by row: `LATERAL (... OFFSET 0)` keeps the
 * subquery from being merged into a join, which the planner may otherwise answer by walking the
 * whole groups index (a merge join) when it expects many rows.
 */
export const exportQueries = {
  /** Every membership, any status, soft-deleted groups included (members_user_order). */
  memberships: (s: ExportSubject): SectionQuery => ({
    sql: `SELECT ${MEMBER_COLUMNS}, g.name AS "groupName", g.kind AS "groupKind", g.soft_deleted_at AS "groupSoftDeletedAt",
            (SELECT coalesce(jsonb_agg(jsonb_build_object('permission', o.permission, 'allowed', o.allowed, 'expiresAt', ${epochMsSql('o.expires_at')}) ORDER BY o.permission COLLATE "C"), '[]')
             FROM member_permission_overrides o WHERE o.member_id = m.id AND ${liveGrant('o')}) AS overrides
          FROM members m
          CROSS JOIN LATERAL (SELECT g.name, g.kind, g.soft_deleted_at FROM groups g WHERE g.id = m.group_id AND g.game_id = $2 OFFSET 0) g
          WHERE m.user_id = $1
          ORDER BY m.joined_at, m.id`,
    params: [s.svcUserId, s.gameId],
  }),

  /** Targeted at the user or sent by them: both columns are external ids (invitations_target, invitations_sender). */
  invitations: (s: ExportSubject): SectionQuery => ({
    sql: `SELECT ${INVITATION_COLUMNS}, ${INVITATION_GROUP_COLUMNS}
          FROM invitations i
          CROSS JOIN LATERAL (SELECT g.name, g.kind FROM groups g WHERE g.id = i.group_id OFFSET 0) g
          WHERE i.game_id = $1
            AND ((${externalKey('i.target_user_id')} = ${externalKey('$2')} AND i.target_user_id = $2)
              OR (${externalKey('i.invited_by_user_id')} = ${externalKey('$2')} AND i.invited_by_user_id = $2))
          ORDER BY i.created_at, i.id`,
    params: [s.gameId, s.userId],
  }),

  joinRequests: (s: ExportSubject): SectionQuery => ({
    sql: `SELECT ${JOIN_REQUEST_COLUMNS} FROM join_requests r WHERE r.game_id = $1 AND r.user_id = $2 ORDER BY r.created_at, r.id`,
    params: [s.gameId, s.svcUserId],
  }),

  /** At most one row (game_bans_user_unique), in force or lapsed. */
  gameBan: (s: ExportSubject): SectionQuery => ({
    sql: `SELECT ${BAN_COLUMNS} FROM game_bans b WHERE b.game_id = $1 AND b.user_id = $2`,
    params: [s.gameId, s.svcUserId],
  }),

  groupBans: (s: ExportSubject): SectionQuery => ({
    sql: `SELECT ${MEMBER_COLUMNS} FROM members m
          CROSS JOIN LATERAL (SELECT FROM groups g WHERE g.id = m.group_id AND g.game_id = $2 OFFSET 0) g
          WHERE m.user_id = $1 AND m.status = 'banned'
          ORDER BY m.joined_at, m.id`,
    params: [s.svcUserId, s.gameId],
  }),

  banHistory: (s: ExportSubject): SectionQuery => ({
    sql: `SELECT ${HISTORY_COLUMNS} FROM ban_history h WHERE h.game_id = $1 AND h.user_id = $2 ORDER BY h.event_at, h.id`,
    params: [s.gameId, s.svcUserId],
  }),

  /** The user's side of each friendship of this game, with its tags (user_relationships_friends). */
  friends: (s: ExportSubject): SectionQuery => ({
    sql: `SELECT ${RELATIONSHIP_COLUMNS}, r.other_external_id AS "friendExternalId",
            ARRAY(SELECT l.tag_id::text FROM friend_tag_links l WHERE l.relationship_id = r.id ORDER BY l.tag_id) AS "tagIds"
          FROM user_relationships r WHERE r.user_id = $1 AND r.game_id = $2 AND r.type = 'friend'
          ORDER BY r.responded_at, r.id`,
    params: [s.svcUserId, s.gameId],
  }),

  requestsSent: (s: ExportSubject): SectionQuery => outbound(s, 'request'),

  requestsReceived: (s: ExportSubject): SectionQuery => ({
    sql: `SELECT ${RELATIONSHIP_COLUMNS} FROM user_relationships r
          WHERE r.other_id = $1 AND r.game_id = $2 AND r.type = 'request' ORDER BY r.created_at, r.id`,
    params: [s.svcUserId, s.gameId],
  }),

  blocks: (s: ExportSubject): SectionQuery => outbound(s, 'blocked'),

  /**
   * One row per (tag, labelled friend), a tag without friends once with a null friend, in tag
   * order then link order: the writer groups consecutive rows, so a tag's friends stream too.
   */
  tags: (s: ExportSubject): SectionQuery => ({
    sql: `SELECT ${TAG_COLUMNS}, f.other_external_id AS "friendExternalId"
          FROM friend_tags t
          LEFT JOIN LATERAL (
            SELECT l.relationship_id, (SELECT r.other_external_id FROM user_relationships r WHERE r.id = l.relationship_id) AS other_external_id
            FROM friend_tag_links l WHERE l.tag_id = t.id OFFSET 0
          ) f ON true
          WHERE t.user_id = $1 AND t.game_id = $2
          ORDER BY t.name COLLATE "C", t.id, f.relationship_id`,
    params: [s.svcUserId, s.gameId],
  }),

  /**
   * Entries naming the user (external id, or internal id as text) as their actor, their target, or
   * a string value or object key of their payload, of this game, oldest first; the writer keeps
   * those that are the user's (names-user.ts). See {@link mentioning}.
   */
  audit: (s: ExportSubject): SectionQuery => {
    const found = mentioning('a.payload IS NOT NULL', 'svc_audit_names(a.actor_user_id, a.target_id, a.payload)', 'a', s);
    return {
      sql: `WITH named AS MATERIALIZED (${found.sql})
            SELECT ${AUDIT_COLUMNS} FROM named a WHERE a.game_id = $1 ORDER BY a.created_at, a.id`,
      params: found.params,
    };
  },

  /**
   * Events still kept whose body holds the external or internal id as a string value or an object
   * key anywhere, of this game, in feed order, as the stored text; the writer keeps those that are
   * the user's (names-user.ts). See {@link mentioning}.
   */
  /** Reports the user filed (reports_reporter), oldest first. */
  reportsFiled: (s: ExportSubject): SectionQuery => ({
    sql: `SELECT ${REPORT_COLUMNS} FROM reports r
          WHERE r.game_id = $1 AND svc_external_key(r.reporter_id) = svc_external_key($2) AND r.reporter_id = $2 ORDER BY r.created_at, r.id`,
    params: [s.gameId, s.userId],
  }),

  /** Reports about the user (reports_subject), oldest first. */
  reportsAbout: (s: ExportSubject): SectionQuery => ({
    sql: `SELECT ${REPORT_COLUMNS} FROM reports r
          WHERE r.game_id = $1 AND r.subject_type = 'user' AND svc_external_key(r.subject_id) = svc_external_key($2) AND r.subject_id = $2
          ORDER BY r.created_at, r.id`,
    params: [s.gameId, s.userId],
  }),

  /** The user's own notifications (notifications_list, walked backwards). */
  notifications: (s: ExportSubject): SectionQuery => ({
    sql: `SELECT ${NOTIFICATION_COLUMNS} FROM notifications n WHERE n.game_id = $1 AND n.user_id = $2 ORDER BY n.created_at, n.id`,
    params: [s.gameId, s.svcUserId],
  }),

  events: (s: ExportSubject): SectionQuery => {
    const found = mentioning('o.body IS NOT NULL', 'svc_names(o.body)', 'o', s);
    return {
      sql: `WITH named AS MATERIALIZED (${found.sql})
            SELECT (${eventBodySql('o')})::text AS json FROM named o WHERE o.game_id = $1 ORDER BY o.era, o.xid, o.seq`,
      params: found.params,
    };
  },
};

/**
 * The journal rows whose part names the user's external id or internal id (as text) among
 * `mentions`. Found by the journal's GIN index of the names' hashes (journal_names), by that
 * condition alone, then tested exactly on those candidates: a row's names are those of both its
 * parts, and a hash may collide. `part` says the row holds the part by the column it never lacks
 * (an audit entry's payload, a kept event's body), not by the audit's or the feed's partial index
 * predicate, which leads the planner to add a walk of that whole index to the search by names.
 * The game and the order are applied to what it found, in the query around it (a MATERIALIZED
 * CTE, planned on its own): with the game or the order in the same statement, the planner may
 * prefer walking the game's whole history in order and testing each row. Rows naming the same
 * ids in another game are read and dropped, which costs only when the ids recur across games.
 * For a user with an id the names may lack (`unindexed`), the game's rows are read instead and
 * tested the same way. Parameters: $1 game, $2 external id, $3 internal id (when the user has one).
 */
function mentioning(part: string, mentions: string, alias: string, s: ExportSubject): SectionQuery {
  const refs = s.svcUserId ? ['$2::text', '$3::text'] : ['$2::text'];
  // An id the names may lack: the game's rows are read (the statement around adds the game).
  const found = s.unindexed ? `${alias}.game_id = $1` : `${alias}.names && ARRAY[${refs.map((r) => `svc_name_hash(${r})`).join(', ')}]`;
  return {
    sql: `SELECT ${alias}.* FROM journal ${alias}
          WHERE ${found} AND ${part}
            AND (${refs.map((r) => `${mentions} @> jsonb_build_array(${r})`).join(' OR ')})`,
    params: s.svcUserId ? [s.gameId, s.userId, s.svcUserId] : [s.gameId, s.userId],
  };
}

/** Whether an invitation of the game names the external id (a user the game knows without an identity). */
export async function namedByInvitation(m: EntityManager, gameId: string, userId: string): Promise<boolean> {
  const { sql, params } = exportQueries.invitations({ gameId, userId, svcUserId: null });
  const [row] = await sqlRows<{ found: boolean }>(m, `SELECT EXISTS (${sql}) AS found`, params);
  return row.found;
}

function outbound(s: ExportSubject, type: 'request' | 'blocked'): SectionQuery {
  return {
    sql: `SELECT ${RELATIONSHIP_COLUMNS} FROM user_relationships r
          WHERE r.user_id = $1 AND r.game_id = $2 AND r.type = '${type}' ORDER BY r.created_at, r.id`,
    params: [s.svcUserId, s.gameId],
  };
}

export type ExportSection = keyof typeof exportQueries;

/**
 * One connection holding a `REPEATABLE READ READ ONLY` transaction: every read of the export sees
 * the same snapshot, however long the answer takes to stream. {@link close} must end it, once.
 */
export class ExportSnapshot {
  private closed = false;

  constructor(
    private readonly runner: QueryRunner,
    private readonly loss: ConnectionLoss,
  ) {}

  /** The error to report for `err`: the connection's own when it was lost (a 503, not a 500), else itself. */
  reason(err: unknown): unknown {
    return this.loss.reason(err);
  }

  get manager(): EntityManager {
    return this.runner.manager;
  }

  /** The transaction's start: the instant the snapshot stands for. */
  async takenAt(): Promise<Date> {
    const [row] = await sqlRows<{ at: Date }>(this.runner.manager, 'SELECT now() AS at');
    return row.at;
  }

  namedByInvitation(gameId: string, userId: string): Promise<boolean> {
    return namedByInvitation(this.runner.manager, gameId, userId);
  }

  async storedVisibility(s: ExportSubject): Promise<ListVisibility | null> {
    const [row] = await sqlRows<{ v: ListVisibility }>(
      this.runner.manager,
      'SELECT friends_list_visibility AS v FROM friend_settings WHERE user_id = $1 AND game_id = $2',
      [s.svcUserId, s.gameId],
    );
    return row?.v ?? null;
  }

  /**
   * A section's rows, {@link EXPORT_BATCH} at a time, through a server-side cursor. The cursor is
   * closed when read to the end; one left open by an early stop ends with the transaction.
   */
  async *batches<R>(section: ExportSection, query: SectionQuery): AsyncGenerator<R[], void, undefined> {
    const cursor = `export_${section.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
    await this.runner.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${query.sql}`, query.params);
    for (;;) {
      const rows = await sqlRows<R>(this.runner.manager, `FETCH ${EXPORT_BATCH} FROM ${cursor}`);
      if (rows.length > 0) yield rows;
      if (rows.length < EXPORT_BATCH) break;
    }
    await this.runner.query(`CLOSE ${cursor}`);
  }

  /**
   * Ends the transaction (after a failure, by ROLLBACK) and gives the connection back. A connection
   * that could not end it is not trusted with another transaction: it goes back with the error, and
   * the pool drops it. One the driver lost is already released.
   */
  async close(failure?: unknown): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    let broken: Error | undefined;
    if (!this.runner.isReleased) {
      try {
        await this.runner.query(failure === undefined ? 'COMMIT' : 'ROLLBACK');
      } catch (err) {
        broken = asError(err);
      }
    }
    this.loss.stop();
    await releaseWith(this.runner, broken);
  }
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** TypeORM's release takes no error; its Postgres runner's does, and hands it to the pool. */
async function releaseWith(runner: QueryRunner, err: Error | undefined): Promise<void> {
  const pg = runner as QueryRunner & { releasePostgresConnection?: (err?: Error) => Promise<void> };
  if (err && pg.releasePostgresConnection) await pg.releasePostgresConnection(err);
  else await runner.release();
}

/** The export's reads (EXTENSIONS X7): one snapshot, sections read by cursor. */
@Injectable()
export class UserExportRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * A connection from the pool in a `REPEATABLE READ READ ONLY` transaction, planned for what the
   * export does: every cursor is read to its end (not the first tenth a cursor is planned for by
   * default, which prefers walking a whole game's history in order to sorting the user's rows),
   * and no statement reads a table from end to end. The planner prices a seq scan of the outbox
   * below its index of names, the containment's selectivity being a guess (5%) and the jsonpath
   * under it costed as one operator; every statement here starts at the user through an index.
   */
  async openSnapshot(): Promise<ExportSnapshot> {
    const runner = this.ds.createQueryRunner();
    const loss = new ConnectionLoss('a user export');
    try {
      loss.watch((await runner.connect()) as EventEmitter);
      await runner.query(
        'START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET LOCAL cursor_tuple_fraction = 1; SET LOCAL enable_seqscan = off',
      );
    } catch (err) {
      loss.stop();
      await releaseWith(runner, asError(err));
      throw loss.reason(err);
    }
    return new ExportSnapshot(runner, loss);
  }
}
