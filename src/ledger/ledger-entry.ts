import { isOperatorRole, OPERATOR_ROLES, type OperatorRole } from '../common/auth/operator-roles';
import { isUuid } from '../common/ids';
import { instant } from '../common/pagination/cursor-fields';
import { isPlainObject, LedgerProblem, parseErasureEntry } from '../erasures/dto/erasure.dto';

/**
 * One entry of the ledger as `ledger export` writes it and `ledger apply` reads it: a removal of
 * access, at the instant it was made (UTC to the millisecond, as stored).
 */
export type LedgerEntry =
  | { kind: 'user.erased'; id: string; at: string; gameId: string; subjectHash: string }
  | { kind: 'api_key.revoked'; id: string; at: string; gameId: string; keyId: string }
  | { kind: 'operator.deleted'; id: string; at: string; operatorId: string }
  | { kind: 'operator.role_changed'; id: string; at: string; operatorId: string; role: OperatorRole };

export type LedgerKind = LedgerEntry['kind'];
export const LEDGER_KINDS: readonly LedgerKind[] = ['user.erased', 'api_key.revoked', 'operator.deleted', 'operator.role_changed'];

type Path = readonly (string | number)[];

function uuidField(raw: Record<string, unknown>, field: string, at: Path): string {
  const value = raw[field];
  if (typeof value !== 'string' || !isUuid(value)) throw new LedgerProblem([...at, field], 'must be a lowercase UUID');
  return value;
}

/** Only the form the export writes: another form of the same instant would not go back as it was stored. */
function instantField(raw: Record<string, unknown>, field: string, at: Path): string {
  const value = instant.read(raw[field]);
  if (value === undefined) {
    throw new LedgerProblem([...at, field], 'must be a timestamp as the ledger lists it: UTC with milliseconds, years 1-9999 (2026-01-01T00:00:00.000Z)');
  }
  return value;
}

/**
 * An entry, every field checked before any query (a value PostgreSQL refuses would fail the whole
 * apply with its own message). An entry without `kind` is an erasure as `erasures:export` writes
 * it, so the files of that command apply too. Fields an entry does not use are ignored.
 */
export function parseLedgerEntry(raw: unknown, at: Path): LedgerEntry {
  if (!isPlainObject(raw)) throw new LedgerProblem(at, 'must be a ledger entry (a JSON object)');
  if (raw.kind === undefined) {
    const e = parseErasureEntry(raw, at);
    return { kind: 'user.erased', id: e.id, at: e.erasedAt, gameId: e.gameId, subjectHash: e.subjectHash };
  }
  const kind = raw.kind as LedgerKind;
  if (!LEDGER_KINDS.includes(kind)) throw new LedgerProblem([...at, 'kind'], `must be one of ${LEDGER_KINDS.join(', ')}`);
  const head = { id: uuidField(raw, 'id', at), at: instantField(raw, 'at', at) };
  switch (kind) {
    case 'user.erased': {
      const subjectHash = raw.subjectHash;
      const gameId = uuidField(raw, 'gameId', at);
      if (typeof subjectHash !== 'string' || !/^[0-9a-f]{64}$/.test(subjectHash)) {
        throw new LedgerProblem([...at, 'subjectHash'], 'must be 64 lowercase hex characters');
      }
      return { kind, ...head, gameId, subjectHash };
    }
    case 'api_key.revoked':
      return { kind, ...head, gameId: uuidField(raw, 'gameId', at), keyId: uuidField(raw, 'keyId', at) };
    case 'operator.deleted':
      return { kind, ...head, operatorId: uuidField(raw, 'operatorId', at) };
    case 'operator.role_changed': {
      const operatorId = uuidField(raw, 'operatorId', at);
      if (!isOperatorRole(raw.role)) throw new LedgerProblem([...at, 'role'], `must be one of ${OPERATOR_ROLES.join(', ')}`);
      return { kind, ...head, operatorId, role: raw.role };
    }
  }
}

/** A ledger file's body, `{ "items": [...] }`: all of it or none. */
export function parseLedger(raw: unknown): LedgerEntry[] {
  if (!isPlainObject(raw)) throw new LedgerProblem([], 'must be one JSON object');
  const { items } = raw;
  if (!Array.isArray(items)) throw new LedgerProblem(['items'], 'must be an array of ledger entries');
  return items.map((item, i) => parseLedgerEntry(item, ['items', i]));
}
