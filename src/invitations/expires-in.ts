import { ApiError } from '../common/errors/api-error';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The latest instant a JavaScript Date (and so the wire) can carry. */
const MAX_DATE_MS = 8.64e15;

/**
 * `expiresIn` (SPEC §4, §8): a positive integer followed by s, m, h or d; no upper bound other
 * than what a timestamp can hold. Returns the expiry instant. `field` names the body's field in a
 * refusal (a timeout's `duration` has the same form).
 */
export function parseExpiresIn(raw: string, now: number, field = 'expiresIn'): Date {
  const m = /^(\d+)([smhd])$/.exec(raw);
  const amount = m ? Number(m[1]) : 0;
  if (!m || amount <= 0) {
    throw ApiError.badRequest(`${field} must be a positive integer followed by s, m, h or d (e.g. 30m, 7d)`);
  }
  const at = now + amount * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  if (!Number.isFinite(at) || at > MAX_DATE_MS) throw ApiError.badRequest(`${field} is too far in the future`);
  return new Date(at);
}
