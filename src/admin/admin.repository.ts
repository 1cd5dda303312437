import { isUuid } from '../common/ids';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';
import { memberCountSql } from '../groups/group-row';
import { ADMIN_AUDIT_COLUMNS, ADMIN_AUDIT_JOINS, type AdminAuditRow, type StatsRow, type UserGameRow } from './admin-rows';

/** Where an audit page starts: strictly before an entry (exact keyset) or before an instant. */
export type AuditBefore = { createdAt: string; id: string } | { createdAt: string };

/** The AND-combined filters of the admin audit searches; a scope is a game, or one of its groups. */
export interface AuditSearch {
  scope: { gameId: string } | { groupId: string };
  before?: AuditBefore;
  since?: Date;
  actions?: string[];
  actorUserId?: string;
  targetId?: string;
  limit: number;
}

/** Operator-wide reads: the stats, the audit searches and the games of an internal user. */
@Injectable()
export class AdminRepository {
  /**
   * One statement, one snapshot. The member total sums each live group's trigger-kept counter; the
   * 24-hour count sums each game's range of journal_game_audit (every entry has a game), so the
   * audit log needs no service-wide index for it.
   */
  async stats(m: EntityManager): Promise<StatsRow> {
    const [row] = await sqlRows<StatsRow>(
      m,
      `SELECT (SELECT count(*) FROM games)::int AS "totalGames",
              g.total_groups AS "totalGroups", g.total_active_members AS "totalActiveMembers",
              (SELECT coalesce(sum(day.n), 0) FROM games ga
                CROSS JOIN LATERAL (SELECT count(*) AS n FROM journal a WHERE a.game_id = ga.id AND a.action IS NOT NULL
                                      AND a.created_at >= now() - interval '24 hours' AND a.created_at <= now()) day)::int
                AS "totalAuditEntriesLast24h"
       FROM (SELECT count(*)::int AS total_groups, coalesce(sum(${memberCountSql('g')}), 0)::int AS total_active_members
             FROM groups g WHERE soft_deleted_at IS NULL) g`,
    );
    return row;
  }

  /**
   * The newest entries of every game, soft-deleted groups included: each game's newest `limit` from
   * its range of journal_game_audit (index-only), merged newest first, and only the `limit`
   * kept read in full. Every entry has a game, so no entry is left out.
   */
  latestAudit(m: EntityManager, limit: number): Promise<AdminAuditRow[]> {
    return sqlRows<AdminAuditRow>(
      m,
      `SELECT ${ADMIN_AUDIT_COLUMNS}
       FROM (SELECT e.id FROM games g
             CROSS JOIN LATERAL (SELECT x.id, x.created_at FROM journal x WHERE x.game_id = g.id AND x.action IS NOT NULL
                                 ORDER BY x.created_at DESC, x.id DESC LIMIT $1) e
             ORDER BY e.created_at DESC, e.id DESC LIMIT $1) newest
       JOIN journal a ON a.id = newest.id AND a.action IS NOT NULL ${ADMIN_AUDIT_JOINS}
       ORDER BY a.created_at DESC, a.id DESC`,
      [limit],
    );
  }

  /** The creation time of an entry inside the scope, or null: a `before` id must name one. */
  async entryTime(m: EntityManager, scope: AuditSearch['scope'], id: string): Promise<Date | null> {
    const [column, value] = 'gameId' in scope ? ['game_id', scope.gameId] : ['group_id', scope.groupId];
    const [row] = await sqlRows<{ createdAt: Date }>(
      m,
      `SELECT a.created_at AS "createdAt" FROM journal a WHERE a.id = $1 AND a.${column} = $2 AND a.action IS NOT NULL`,
      [id, value],
    );
    return row?.createdAt ?? null;
  }

  /**
   * A page newest first, `limit + 1` rows, on journal_game_audit or journal_group_audit; the filters
   * narrow the walk down that index. `a.action IS NOT NULL`, written out, is what lets the planner use
   * those partial indexes, and keeps out the rows that are events only.
   */
  search(m: EntityManager, s: AuditSearch): Promise<AdminAuditRow[]> {
    const params: unknown[] = [s.limit + 1];
    const where: string[] = [];
    const add = (value: unknown) => `$${params.push(value)}`;
    where.push('gameId' in s.scope ? `a.game_id = ${add(s.scope.gameId)}` : `a.group_id = ${add(s.scope.groupId)}`);
    if (s.before && 'id' in s.before) {
      where.push(`(a.created_at, a.id) < (${add(s.before.createdAt)}::timestamptz, ${add(s.before.id)}::uuid)`);
    } else if (s.before) {
      where.push(`a.created_at < ${add(s.before.createdAt)}::timestamptz`);
    }
    if (s.since) where.push(`a.created_at >= ${add(s.since.toISOString())}::timestamptz`);
    if (s.actions?.length) where.push(`a.action = ANY(${add(s.actions)}::text[])`);
    if (s.actorUserId !== undefined) {
      // An erased actor is named by their erasure's pseudonym (EXTENSIONS X7).
      where.push(isUuid(s.actorUserId) ? `a.actor_user_id = ${add(s.actorUserId)}::uuid` : `a.actor_pseudonym = ${add(s.actorUserId)}`);
    }
    if (s.targetId !== undefined) where.push(`a.target_id = ${add(s.targetId)}`);
    return sqlRows<AdminAuditRow>(
      m,
      `SELECT ${ADMIN_AUDIT_COLUMNS} FROM journal a ${ADMIN_AUDIT_JOINS}
       WHERE a.action IS NOT NULL AND ${where.join(' AND ')}
       ORDER BY a.created_at DESC, a.id DESC LIMIT $1`,
      params,
    );
  }

  /**
   * The games an internal user has an identity in, gameId ascending, each with the user's active
   * memberships in live groups (user_identities' (user_id, game_id) key, members_user_order).
   */
  userGames(m: EntityManager, svcUserId: string): Promise<UserGameRow[]> {
    return sqlRows<UserGameRow>(
      m,
      `SELECT ui.game_id AS "gameId", ui.external_id AS "externalUserId",
              (SELECT count(*) FROM members mb JOIN groups g ON g.id = mb.group_id
                WHERE mb.user_id = ui.user_id AND mb.status = 'active'
                  AND g.game_id = ui.game_id AND g.soft_deleted_at IS NULL)::int AS "joinedGroupCount"
       FROM user_identities ui WHERE ui.user_id = $1
       ORDER BY ui.game_id`,
      [svcUserId],
    );
  }
}
