import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { preparedRows } from '../db/sql';
import { AUDIT_COLUMNS, type AuditRow } from './audit-row';

/** Where a page starts: strictly before an entry (exact keyset), before an instant, or at the top. */
export type AuditStart = { beforeId: string } | { beforeAt: string } | Record<string, never>;

/** A page of one group's log, or why there is none. */
export type GroupAuditPage = { found: false } | { found: true; beforeFound: boolean; rows: AuditRow[] };

type PageRow = AuditRow & { found: boolean; beforeFound: boolean };

@Injectable()
export class AuditRepository {
  /**
   * Newest first on journal_group_audit, in ONE statement: the group check (live, this game), the
   * entry a `before` id names (it must be of this group) and the page itself. A page of a long
   * history costs one index descent wherever it starts. `action IS NOT NULL` is written on every
   * journal alias: it keeps out the rows that are events only, and it is what lets the planner use
   * the partial index.
   */
  async groupPage(
    ds: DataSource,
    opts: { gameId: string; groupId: string; start: AuditStart; actions?: string[]; limit: number },
  ): Promise<GroupAuditPage> {
    const params: unknown[] = [opts.groupId, opts.gameId, opts.limit + 1];
    const where = ['f.found', 'a.group_id = $1', 'a.action IS NOT NULL'];
    let variant = '';
    let before = 'NULL::timestamptz AS b_at, NULL::uuid AS b_id, true AS "beforeFound" FROM (SELECT 1) one';
    if ('beforeId' in opts.start) {
      params.push(opts.start.beforeId);
      before = `b.created_at AS b_at, b.id AS b_id, b.id IS NOT NULL AS "beforeFound"
        FROM (SELECT 1) one LEFT JOIN journal b ON b.id = $${params.length} AND b.group_id = $1 AND b.action IS NOT NULL`;
      where.push('(a.created_at, a.id) < (f.b_at, f.b_id)');
      variant += 'i';
    } else if ('beforeAt' in opts.start) {
      // Passed to Postgres as written: it keeps microseconds a JavaScript Date would drop.
      params.push(opts.start.beforeAt);
      where.push(`a.created_at < $${params.length}::timestamptz`);
      variant += 't';
    }
    if (opts.actions?.length) {
      params.push(opts.actions);
      where.push(`a.action = ANY($${params.length}::text[])`);
      variant += 'a';
    }
    const rows = await preparedRows<PageRow>(
      ds,
      `audit_group_page_${variant}`,
      `SELECT f.found, f."beforeFound", p.*
       FROM (SELECT EXISTS (SELECT 1 FROM groups g WHERE g.id = $1 AND g.game_id = $2 AND g.soft_deleted_at IS NULL) AS found,
                    ${before}) f
       LEFT JOIN LATERAL (
         SELECT ${AUDIT_COLUMNS} FROM journal a WHERE ${where.join(' AND ')}
         ORDER BY a.created_at DESC, a.id DESC LIMIT $3) p ON true`,
      params,
    );
    const head = rows[0];
    if (!head?.found) return { found: false };
    return { found: true, beforeFound: head.beforeFound, rows: head.id === null ? [] : rows };
  }
}
