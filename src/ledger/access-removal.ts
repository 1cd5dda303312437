import type { EntityManager } from 'typeorm';
import type { OperatorRole } from '../common/auth/operator-roles';

/** A removal of access the ledger keeps (migration AccessLedger1766300000000), besides erasures. */
export type AccessRemoval =
  | { kind: 'api_key.revoked'; keyId: string }
  | { kind: 'operator.deleted'; operatorId: string }
  | { kind: 'operator.role_changed'; operatorId: string; role: OperatorRole };

/**
 * Records a removal in the ledger, in the transaction of the change (called with its unit of
 * work's manager), so the entry exists exactly when the change does. A revocation takes the key's
 * own revocation time, which `ledger apply` gives back to the key after a restore; an operator's
 * change the statement's time, never before an earlier change of the same operator (whose row lock
 * it waited for), so the last one recorded is the role the operator was left with.
 */
export async function recordAccessRemoval(m: EntityManager, removal: AccessRemoval): Promise<void> {
  if (removal.kind === 'api_key.revoked') {
    await m.query(
      `INSERT INTO access_ledger (id, kind, at, game_id, target_id)
       SELECT svc_uuidv7(), 'api_key.revoked', k.revoked_at, k.game_id, k.id FROM api_keys k WHERE k.id = $1`,
      [removal.keyId],
    );
    return;
  }
  await m.query(`INSERT INTO access_ledger (id, kind, at, target_id, role) VALUES (svc_uuidv7(), $1, statement_timestamp(), $2, $3)`, [
    removal.kind,
    removal.operatorId,
    removal.kind === 'operator.role_changed' ? removal.role : null,
  ]);
}
