import { ApiError } from '../common/errors/api-error';
import { parseInstant } from '../common/validation/parse-instant';
import { parseExpiresIn } from '../invitations/expires-in';

/** EXTENSIONS X8: a grant lasts a year at most. */
export const MAX_GRANT_MS = 365 * 86_400_000;

/** The optional expiry of a role assignment or an override, as the body says it. */
export interface GrantExpiryInput {
  expiresIn?: string | null;
  expiresAt?: string | null;
}

/**
 * When a grant ends: null (permanent) without either field; `expiresIn` from now, at most 365d;
 * `expiresAt` strictly in the future. Both at once is 400, as is any other form.
 */
export function grantExpiry(input: GrantExpiryInput, now = Date.now()): Date | null {
  const { expiresIn, expiresAt } = input;
  const given = (v: unknown) => v !== undefined && v !== null;
  if (given(expiresIn) && given(expiresAt)) throw ApiError.badRequest('expiresIn and expiresAt: give one of them, not both');
  if (given(expiresIn)) {
    if (typeof expiresIn !== 'string') throw ApiError.badRequest('expiresIn must be a string such as 30m, 2h or 7d');
    const at = parseExpiresIn(expiresIn, now);
    if (at.getTime() - now > MAX_GRANT_MS) throw ApiError.badRequest('expiresIn must be at most 365d');
    return at;
  }
  if (given(expiresAt)) {
    const at = parseInstant(expiresAt, 'expiresAt')!;
    if (at.getTime() <= now) throw ApiError.badRequest('expiresAt must be in the future');
    if (at.getTime() - now > MAX_GRANT_MS) throw ApiError.badRequest('expiresAt must be at most 365 days ahead');
    return at;
  }
  return null;
}
