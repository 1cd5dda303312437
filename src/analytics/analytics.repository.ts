import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ReadSource } from '../db/replica/read-source';
import { sqlRows } from '../db/sql';
import { transaction } from '../db/transaction';
import { CHURN_LOWER_BOUNDS, type GrowthWindow } from './analytics-window';

export interface TimeRange {
  from?: Date;
  to?: Date;
}

export interface ChurnRow {
  groups: number;
  departures: number;
  /** One count per bin, in bin order. */
  bins: number[];
}

export interface GrowthSeriesRow {
  groupId: string | null;
  name: string;
  data: number[];
}

export interface ActivityRow {
  total: number;
  cells: number[][];
}

export interface RoleDistributionRow {
  totalAssignments: number;
  uniqueRoleNames: number;
  topRoles: { name: string; count: number }[];
  otherCount: number;
}

export interface PermissionUsageRow {
  totalCount: number;
  uniqueKeys: number;
  items: { permission: string; roleGrants: number; memberOverrides: number; total: number }[];
  otherCount: number;
}

/** Per sort or hash node of an analytics query; admin-only reads, so few run at once. */
const ANALYTICS_WORK_MEM = '64MB';

/** `column >= from AND column < to` for the bounds that are given; pushes their parameters. */
function rangeClause(column: string, range: TimeRange, params: unknown[]): string {
  let sql = '';
  if (range.from) sql += ` AND ${column} >= $${params.push(range.from.toISOString())}::timestamptz`;
  if (range.to) sql += ` AND ${column} < $${params.push(range.to.toISOString())}::timestamptz`;
  return sql;
}

/**
 * The analytics of SPEC §4, each one statement that leaves only the figures to Node: aggregates,
 * window functions and generate_series do the counting. Scoped to one game; "live" groups are the
 * ones not soft-deleted.
 */
@Injectable()
export class AnalyticsRepository {
  constructor(private readonly readDb: ReadSource) {}

  /**
   * Runs the analytics reads in a read-only transaction tuned for one large aggregate: JIT off (on
   * a million rows its compilation alone took 0.5-1.1 s of a 1.5 s query, see bench/analytics.mjs)
   * and enough work_mem for the hash joins and aggregates to stay in memory. The settings end
   * with the transaction, so pooled connections keep the server's defaults.
   */
  session<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return transaction(this.readDb.ds, async (m) => {
      await m.query(`SET TRANSACTION READ ONLY; SET LOCAL jit = off; SET LOCAL work_mem = '${ANALYTICS_WORK_MEM}'`);
      return work(m);
    });
  }

  /**
   * Live groups created in the window and the tenure of their departures (left or kicked, leftAt
   * set), binned by width_bucket over the bins' lower bounds: a tenure equal to a bound lands in
   * the bin that starts there.
   */
  async churn(m: EntityManager, gameId: string, range: TimeRange): Promise<ChurnRow> {
    const params: unknown[] = [gameId];
    const [row] = await sqlRows<ChurnRow>(
      m,
      `WITH live AS (
         SELECT g.id FROM groups g
         WHERE g.game_id = $1 AND g.soft_deleted_at IS NULL${rangeClause('g.created_at', range, params)}
       ), per_bin AS (
         SELECT width_bucket(extract(epoch FROM mb.left_at - mb.joined_at) * 1000,
                             '{${CHURN_LOWER_BOUNDS.join(',')}}'::numeric[]) AS bin,
                count(*) AS n
         FROM live JOIN members mb ON mb.group_id = live.id
         WHERE mb.status IN ('left', 'kicked') AND mb.left_at IS NOT NULL
         GROUP BY 1
       )
       SELECT (SELECT count(*) FROM live)::int AS groups,
              (SELECT coalesce(sum(n), 0) FROM per_bin)::int AS departures,
              ARRAY(SELECT coalesce(p.n, 0)::int FROM generate_series(0, ${CHURN_LOWER_BOUNDS.length}) AS b(bin)
                    LEFT JOIN per_bin p ON p.bin = b.bin ORDER BY b.bin) AS bins`,
      params,
    );
    return row;
  }

  /**
   * Active members at every bucket boundary of the top N live groups and of all the others.
   *
   * Each membership is a +1 in the bucket of its join and, once it ends, a -1 in the bucket of its
   * departure (never before the join it ends). width_bucket over `thresholds` (boundary i + 1 ms)
   * counts the boundaries strictly before an instant, which is the first bucket whose boundary is
   * at or after it; the value n means after `to`. A running sum over the buckets then gives, at
   * each boundary T, the members with joinedAt <= T and (leftAt null or leftAt > T); status is not
   * consulted.
   *
   * One pass over the game's members, grouped two ways at once (GROUPING SETS): per group, the
   * members active at `to`, which ranks the groups (ties by id ascending); and per (join bucket,
   * departure bucket) over every live group. The top N groups are then read again on their own
   * (a few index ranges), and `all-others` is the whole minus them. It exists only when there are
   * more groups than N.
   */
  growth(m: EntityManager, gameId: string, w: GrowthWindow, topN: number): Promise<GrowthSeriesRow[]> {
    const thresholds = w.boundaries.map((b) => new Date(b + 1).toISOString());
    return sqlRows<GrowthSeriesRow>(
      m,
      `WITH live AS MATERIALIZED (
         SELECT g.id, g.name FROM groups g WHERE g.game_id = $1 AND g.soft_deleted_at IS NULL
       ), scan AS MATERIALIZED (
         -- OFFSET 0 keeps the subquery whole: the planner then assumes few distinct buckets (it cannot
         -- know them) and hashes both grouping sets in the one pass, instead of sorting a million rows.
         SELECT GROUPING(x.group_id) = 1 AS whole, x.group_id, x.joined_k, x.left_k,
                count(*) AS n, count(*) FILTER (WHERE x.active_at_to) AS active
         FROM (
           SELECT mb.group_id,
                  width_bucket(mb.joined_at, $2::timestamptz[]) AS joined_k,
                  width_bucket(CASE WHEN mb.left_at IS NOT NULL THEN greatest(mb.joined_at, mb.left_at) END,
                               $2::timestamptz[]) AS left_k,
                  mb.joined_at <= $3::timestamptz AND (mb.left_at IS NULL OR mb.left_at > $3::timestamptz) AS active_at_to
           -- An array of the live groups, not a join: one index-only scan of members_group_joined
           -- whatever the planner guesses (a hash join read the whole heap on PostgreSQL 18).
           FROM members mb WHERE mb.group_id = ANY (ARRAY(SELECT id FROM live))
           OFFSET 0
         ) x
         GROUP BY GROUPING SETS ((x.group_id), (x.joined_k, x.left_k))
       ), ranked AS MATERIALIZED (
         SELECT live.id, live.name, row_number() OVER (ORDER BY coalesce(s.active, 0) DESC, live.id) AS rk
         FROM live LEFT JOIN scan s ON s.group_id = live.id AND NOT s.whole
       ), top_moves AS MATERIALIZED (
         SELECT mb.group_id::text AS sid,
                width_bucket(mb.joined_at, $2::timestamptz[]) AS joined_k,
                width_bucket(CASE WHEN mb.left_at IS NOT NULL THEN greatest(mb.joined_at, mb.left_at) END,
                             $2::timestamptz[]) AS left_k,
                count(*) AS n
         FROM members mb
         -- An array keeps this an index scan of the few top groups: the planner cannot tell how
         -- many rows pass rk <= $4 and would otherwise hash-join a sequential scan of every member.
         WHERE mb.group_id = ANY (ARRAY(SELECT r.id FROM ranked r WHERE r.rk <= $4))
         GROUP BY 1, 2, 3
       ), moves AS (
         SELECT sid, joined_k, left_k, n FROM top_moves
         UNION ALL
         SELECT 'all-others', joined_k, left_k, n FROM scan WHERE whole
         UNION ALL
         SELECT 'all-others', joined_k, left_k, -n FROM top_moves
       ), deltas AS MATERIALIZED (
         SELECT mv.sid, e.k, sum(e.d) AS d
         FROM moves mv CROSS JOIN LATERAL (VALUES (mv.joined_k, mv.n), (mv.left_k, -mv.n)) AS e(k, d)
         WHERE e.k < $5
         GROUP BY 1, 2
       ), series AS (
         SELECT id::text AS sid, id AS group_id, name, rk FROM ranked WHERE rk <= $4
         UNION ALL
         SELECT 'all-others', NULL, 'All others', rk FROM ranked WHERE rk = $4 + 1
       )
       SELECT s.group_id AS "groupId", s.name,
              ARRAY(SELECT (sum(coalesce(d.d, 0)) OVER (ORDER BY b.k))::int
                    FROM generate_series(0, $5 - 1) AS b(k)
                    LEFT JOIN deltas d ON d.sid = s.sid AND d.k = b.k
                    ORDER BY b.k) AS data
       FROM series s ORDER BY s.rk`,
      [gameId, thresholds, new Date(w.toMs).toISOString(), topN, w.boundaries.length],
    );
  }

  /**
   * Audit entries of the game's groups (soft-deleted ones included) per UTC weekday and hour.
   * The entries are first counted per hour since the epoch (plain arithmetic on the epoch, no
   * time zone in play), then those few hours are folded into the 7 × 24 grid; 1970-01-01 was a
   * Thursday (day 4). The game's range of journal_game_audit, whose predicate `a.action IS NOT NULL`
   * is written out for the planner to use it (and keeps out the rows that are events only).
   */
  async activity(m: EntityManager, gameId: string, range: TimeRange): Promise<ActivityRow> {
    const params: unknown[] = [gameId];
    const [row] = await sqlRows<ActivityRow>(
      m,
      `WITH hours AS (
         SELECT floor(date_part('epoch', a.created_at) / 3600)::bigint AS hour, count(*) AS n
         FROM journal a
         WHERE a.game_id = $1 AND a.action IS NOT NULL AND a.group_id IS NOT NULL${rangeClause('a.created_at', range, params)}
         GROUP BY 1
       ), counts AS (
         SELECT ((hour / 24 + 4) % 7)::int AS d, (hour % 24)::int AS h, sum(n) AS n FROM hours GROUP BY 1, 2
       )
       SELECT (SELECT coalesce(sum(n), 0) FROM counts)::int AS total,
              (SELECT json_agg(x.hours ORDER BY x.d)
               FROM (SELECT d.d, json_agg(coalesce(c.n, 0) ORDER BY h.h) AS hours
                     FROM generate_series(0, 6) AS d(d) CROSS JOIN generate_series(0, 23) AS h(h)
                     LEFT JOIN counts c ON c.d = d.d AND c.h = h.h
                     GROUP BY d.d) x) AS cells`,
      params,
    );
    return row;
  }

  /**
   * Role assignments of active members in live groups, by role name; the top 10 and the rest.
   * "Active" is read as "no member row in another status" (every assignment has its member): the
   * anti-join hashes the fewer inactive members, 20 % faster than joining the active ones.
   */
  async roleDistribution(m: EntityManager, gameId: string): Promise<RoleDistributionRow> {
    const [row] = await sqlRows<RoleDistributionRow>(
      m,
      `WITH per_name AS (
         SELECT r.name, count(*) AS n
         FROM groups g
         JOIN roles r ON r.group_id = g.id
         JOIN member_roles mr ON mr.role_id = r.id
         WHERE g.game_id = $1 AND g.soft_deleted_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM members mb WHERE mb.id = mr.member_id AND mb.status <> 'active')
         GROUP BY r.name
       ), ranked AS (
         SELECT name, n, row_number() OVER (ORDER BY n DESC, name COLLATE "C") AS rk FROM per_name
       )
       SELECT coalesce(sum(n), 0)::int AS "totalAssignments", count(*)::int AS "uniqueRoleNames",
              coalesce(json_agg(json_build_object('name', name, 'count', n) ORDER BY rk) FILTER (WHERE rk <= 10), '[]')
                AS "topRoles",
              coalesce(sum(n) FILTER (WHERE rk > 10), 0)::int AS "otherCount"
       FROM ranked`,
      [gameId],
    );
    return row;
  }

  /**
   * Per permission key: roles granting it and member overrides of it (any member status) in live
   * groups; the top 15 by total and the rest.
   */
  async permissionUsage(m: EntityManager, gameId: string): Promise<PermissionUsageRow> {
    const [row] = await sqlRows<PermissionUsageRow>(
      m,
      `WITH live AS (
         SELECT g.id FROM groups g WHERE g.game_id = $1 AND g.soft_deleted_at IS NULL
       ), grants AS (
         SELECT rp.permission, count(*) AS n
         FROM live JOIN roles r ON r.group_id = live.id JOIN role_permissions rp ON rp.role_id = r.id
         GROUP BY 1
       ), overrides AS (
         SELECT o.permission, count(*) AS n
         FROM live JOIN members mb ON mb.group_id = live.id JOIN member_permission_overrides o ON o.member_id = mb.id
         GROUP BY 1
       ), ranked AS (
         SELECT permission, coalesce(g.n, 0) AS role_grants, coalesce(o.n, 0) AS member_overrides,
                coalesce(g.n, 0) + coalesce(o.n, 0) AS total,
                row_number() OVER (ORDER BY coalesce(g.n, 0) + coalesce(o.n, 0) DESC, permission COLLATE "C") AS rk
         FROM grants g FULL JOIN overrides o USING (permission)
       )
       SELECT coalesce(sum(total), 0)::int AS "totalCount", count(*)::int AS "uniqueKeys",
              coalesce(json_agg(json_build_object('permission', permission, 'roleGrants', role_grants,
                                                  'memberOverrides', member_overrides, 'total', total) ORDER BY rk)
                         FILTER (WHERE rk <= 15), '[]') AS items,
              coalesce(sum(total) FILTER (WHERE rk > 15), 0)::int AS "otherCount"
       FROM ranked`,
      [gameId],
    );
    return row;
  }
}
