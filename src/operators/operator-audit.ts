import type { EntityManager } from 'typeorm';
import type { ActingOperator } from '../common/auth/operator-roles';
import type { OperatorAuditAction } from './operator-actions';

export interface OperatorAuditInput {
  action: OperatorAuditAction;
  gameId?: string | null;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

/**
 * Records who changed what through an admin route or the operator command, in the transaction of
 * the change itself: the entry exists exactly when the change does. Called by each mutation with
 * its unit of work's manager and who made it (an operator, root, or cli with its origin).
 */
export async function recordOperatorAction(m: EntityManager, by: ActingOperator, entry: OperatorAuditInput): Promise<void> {
  await m.query(
    `INSERT INTO operator_audit (operator_id, operator_name, action, game_id, target_id, details) VALUES ($1, $2, $3, $4, $5, $6)`,
    [by.id, by.name, entry.action, entry.gameId ?? null, entry.targetId ?? null, { ...entry.details, ...by.origin }],
  );
}
