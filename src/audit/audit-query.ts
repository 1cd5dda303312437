import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { isInstantText } from '../common/validation/parse-instant';
import { isAuditAction } from './audit-actions';

/** The repeated `actions` filter: every value must be a known action (SPEC §4 Audit log). */
export function parseActions(raw: string | string[] | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const list = Array.isArray(raw) ? raw : [raw];
  for (const a of list) {
    if (typeof a !== 'string' || !isAuditAction(a)) throw ApiError.badRequest(`actions: unknown action ${JSON.stringify(a)}`);
  }
  return list;
}

/** A zone offset's hours: PostgreSQL refuses 16 and more, which JavaScript takes. */
const OFFSET_HOURS = /[+-](\d{2}):?\d{2}$/;

/**
 * A time PostgreSQL and parseInstant read alike: the grammar and calendar of parseInstant (no
 * `2020-02-30`, no year 0) and an offset within PostgreSQL's. Anything else would fail in the
 * query as a 500.
 */
function isBeforeTime(raw: string): boolean {
  return isInstantText(raw) && Number(OFFSET_HOURS.exec(raw)?.[1] ?? 0) < 16;
}

/** `before`: an entry id (exact keyset) or a bare ISO 8601 timestamp (exclusive upper bound). */
export function parseBefore(raw: string | undefined): { id: string } | { at: string } | undefined {
  if (raw === undefined) return undefined;
  if (isUuid(raw)) return { id: raw };
  // Passed to Postgres as written: it keeps microseconds a JavaScript Date would drop.
  if (isBeforeTime(raw)) return { at: raw };
  throw ApiError.badRequest('before must be an audit entry id (a previous nextCursor) or an ISO 8601 timestamp');
}
