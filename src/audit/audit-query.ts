import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
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

const ISO = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `before`: an entry id (exact keyset) or a bare ISO 8601 timestamp (exclusive upper bound). */
export function parseBefore(raw: string | undefined): { id: string } | { at: string } | undefined {
  if (raw === undefined) return undefined;
  if (isUuid(raw)) return { id: raw };
  // Passed to Postgres as written: it keeps microseconds a JavaScript Date would drop.
  if (ISO.test(raw) && !Number.isNaN(Date.parse(raw))) return { at: raw };
  throw ApiError.badRequest('before must be an audit entry id (a previous nextCursor) or an ISO 8601 timestamp');
}
