import { OPERATOR_ROLES, type OperatorRole } from '../common/auth/operator-roles';
import type { ErasureEntryDto } from '../erasures/dto/erasure.dto';
import type { LedgerEntry } from './ledger-entry';

/** What applying a set of ledger entries comes to, whatever their order or repeats in the file. */
export interface LedgerPlan {
  erasures: ErasureEntryDto[];
  /** One per key: its earliest recorded revocation, the time the key gets back. */
  revocations: { keyId: string; gameId: string; at: string }[];
  deletions: string[];
  /** One per operator: the most it may be after the restore. */
  roles: { operatorId: string; role: OperatorRole }[];
}

const rank = (role: OperatorRole) => OPERATOR_ROLES.indexOf(role);

/**
 * The final state the entries record. An operator's role is the one of its latest change (the
 * ledger holds promotions too, so a downgrade undone later is not applied); two changes at the same
 * millisecond cannot be ordered, and the lower role wins, as the ledger errs towards less access.
 */
export function planLedger(entries: readonly LedgerEntry[]): LedgerPlan {
  const erasures: ErasureEntryDto[] = [];
  const revocations = new Map<string, { keyId: string; gameId: string; at: string }>();
  const deletions = new Set<string>();
  const roles = new Map<string, { at: string; role: OperatorRole }>();
  for (const e of entries) {
    switch (e.kind) {
      case 'user.erased':
        erasures.push({ id: e.id, gameId: e.gameId, subjectHash: e.subjectHash, erasedAt: e.at });
        break;
      case 'api_key.revoked': {
        const seen = revocations.get(e.keyId);
        if (!seen || e.at < seen.at) revocations.set(e.keyId, { keyId: e.keyId, gameId: e.gameId, at: e.at });
        break;
      }
      case 'operator.deleted':
        deletions.add(e.operatorId);
        break;
      case 'operator.role_changed': {
        const seen = roles.get(e.operatorId);
        if (!seen || e.at > seen.at || (e.at === seen.at && rank(e.role) < rank(seen.role))) roles.set(e.operatorId, { at: e.at, role: e.role });
        break;
      }
    }
  }
  return {
    erasures,
    revocations: [...revocations.values()],
    deletions: [...deletions],
    roles: [...roles].filter(([id]) => !deletions.has(id)).map(([operatorId, { role }]) => ({ operatorId, role })),
  };
}
