import { ApiError } from '../common/errors/api-error';
import { findNulCharacter } from '../common/validation/nul-characters';
import { parseExpiresIn } from './expires-in';

/** SPEC §8: a bulk-invite row's userId is at most 255 characters. */
export const BULK_USER_ID_MAX = 255;

export interface BulkRow {
  index: number;
  userId: string;
  roleId: string | null;
  expiresAt: Date | null;
}

export type ParsedBulkRow = BulkRow | { index: number; userId?: string; error: { code: string; message: string } };

/** Validates one row of a bulk invite (DECISIONS §4); a bad row becomes a per-row error. */
export function parseBulkRow(raw: unknown, index: number, now: number): ParsedBulkRow {
  const fail = (message: string, userId?: string): ParsedBulkRow => ({
    index,
    ...(userId !== undefined ? { userId } : {}),
    error: { code: 'bad_request', message },
  });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('row must be an object');
  const nul = findNulCharacter(raw, '');
  if (nul !== null) {
    const userId = (raw as Record<string, unknown>).userId;
    return fail(`${nul} must not contain the NUL character`, typeof userId === 'string' && nul !== 'userId' ? userId : undefined);
  }
  const row = raw as Record<string, unknown>;
  if (typeof row.userId !== 'string' || row.userId.length === 0) return fail('userId must be a non-empty string');
  const userId = row.userId;
  if (userId.length > BULK_USER_ID_MAX) return fail(`userId must be at most ${BULK_USER_ID_MAX} characters`, userId);
  if (row.roleId !== undefined && row.roleId !== null && typeof row.roleId !== 'string') return fail('roleId must be a string', userId);
  let expiresAt: Date | null = null;
  if (row.expiresIn !== undefined && row.expiresIn !== null) {
    if (typeof row.expiresIn !== 'string') return fail('expiresIn must be a string such as 7d', userId);
    try {
      expiresAt = parseExpiresIn(row.expiresIn, now);
    } catch (err) {
      return fail(err instanceof ApiError ? err.message : 'expiresIn is invalid', userId);
    }
  }
  return { index, userId, roleId: typeof row.roleId === 'string' ? row.roleId : null, expiresAt };
}
