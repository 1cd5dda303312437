import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { ResolvedOperator } from '../common/auth/operator-lookup';
import type { OperatorRole } from '../common/auth/operator-roles';
import { sqlRows } from '../db/sql';

export interface OperatorRow {
  id: string;
  name: string;
  role: OperatorRole;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface OperatorAuditRow {
  id: string;
  at: Date;
  operatorId: string | null;
  operatorName: string;
  action: string;
  gameId: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
}

/** Whose entries: a named operator's, or those of the root token or the operator command (no operator id, told apart by name). */
export type AuditedBy = { operatorId: string } | { name: 'root' | 'cli' };

const COLUMNS = `id, name, role, created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

/** Operators and their audit (migration 1765400000000-operators). */
@Injectable()
export class OperatorsRepository {
  constructor(private readonly ds: DataSource) {}

  async insert(m: EntityManager, o: { id: string; name: string; role: OperatorRole; prefix: string; tokenHash: Buffer }): Promise<OperatorRow> {
    const [row] = await sqlRows<OperatorRow>(
      m,
      `INSERT INTO operators (id, name, role, token_prefix, token_hash) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [o.id, o.name, o.role, o.prefix, o.tokenHash],
    );
    return row;
  }

  /** Every operator, oldest first: a team has a handful. */
  list(): Promise<OperatorRow[]> {
    return sqlRows<OperatorRow>(this.ds.manager, `SELECT ${COLUMNS} FROM operators ORDER BY created_at, id`);
  }

  /** The operator locked for a change, with its role before it. */
  async lockOne(m: EntityManager, id: string): Promise<OperatorRow | null> {
    const [row] = await sqlRows<OperatorRow>(m, `SELECT ${COLUMNS} FROM operators WHERE id = $1 FOR UPDATE`, [id]);
    return row ?? null;
  }

  async setRole(m: EntityManager, id: string, role: OperatorRole): Promise<OperatorRow> {
    const [row] = await sqlRows<OperatorRow>(m, `UPDATE operators SET role = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [id, role]);
    return row;
  }

  async delete(m: EntityManager, id: string): Promise<void> {
    await m.query(`DELETE FROM operators WHERE id = $1`, [id]);
  }

  async byPrefix(prefix: string): Promise<ResolvedOperator | null> {
    const [row] = await sqlRows<ResolvedOperator>(
      this.ds.manager,
      `SELECT id, name, role, token_hash AS "tokenHash" FROM operators WHERE token_prefix = $1`,
      [prefix],
    );
    return row ?? null;
  }

  /** Written at most once a minute per operator: a read-heavy console does not write on each page. */
  async touch(id: string): Promise<void> {
    await this.ds.query(`UPDATE operators SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`, [id]);
  }

  /**
   * Newest first, keyset on id; `before` is exclusive. The order names the table's column: a bare
   * `id` would be the text the select answers, which sorts 9 after 10.
   */
  audit(q: { by?: AuditedBy; action?: string; before?: string; limit: number }): Promise<OperatorAuditRow[]> {
    const params: unknown[] = [q.limit];
    const where: string[] = [];
    if (q.by && 'operatorId' in q.by) where.push(`x.operator_id = $${params.push(q.by.operatorId)}::uuid`);
    else if (q.by) where.push(`x.operator_id IS NULL AND x.operator_name = $${params.push(q.by.name)}`);
    if (q.action !== undefined) where.push(`x.action = $${params.push(q.action)}`);
    if (q.before !== undefined) where.push(`x.id < $${params.push(q.before)}::bigint`);
    return sqlRows<OperatorAuditRow>(
      this.ds.manager,
      `SELECT x.id::text AS id, x.at, x.operator_id AS "operatorId", x.operator_name AS "operatorName", x.action, x.game_id AS "gameId", x.target_id AS "targetId", x.details
       FROM operator_audit x ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY x.id DESC LIMIT $1`,
      params,
    );
  }
}
