import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';
import { AUDIT_COLUMNS, type AuditRow } from './audit-row';

/** Where a page starts: strictly before an entry (exact keyset) or before an instant. */
export type AuditBefore = { createdAt: string; id: string } | { createdAt: string };

@Injectable()
export class AuditRepository {
  async findInGroup(m: EntityManager, groupId: string, id: string): Promise<AuditRow | null> {
    const [row] = await sqlRows<AuditRow>(m, `SELECT ${AUDIT_COLUMNS} FROM audit_entries a WHERE a.id = $1 AND a.group_id = $2`, [
      id,
      groupId,
    ]);
    return row ?? null;
  }

  /** Newest first on audit_entries_group_order; `actions` OR-combined. */
  listForGroup(m: EntityManager, groupId: string, opts: { before?: AuditBefore; actions?: string[]; limit: number }): Promise<AuditRow[]> {
    const params: unknown[] = [groupId, opts.limit + 1];
    const where = ['a.group_id = $1'];
    if (opts.before && 'id' in opts.before) {
      params.push(opts.before.createdAt, opts.before.id);
      where.push(`(a.created_at, a.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    } else if (opts.before) {
      params.push(opts.before.createdAt);
      where.push(`a.created_at < $${params.length}::timestamptz`);
    }
    if (opts.actions?.length) {
      params.push(opts.actions);
      where.push(`a.action = ANY($${params.length}::text[])`);
    }
    return sqlRows<AuditRow>(
      m,
      `SELECT ${AUDIT_COLUMNS} FROM audit_entries a WHERE ${where.join(' AND ')}
       ORDER BY a.created_at DESC, a.id DESC LIMIT $2`,
      params,
    );
  }
}
