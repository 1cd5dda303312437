import { ApiError } from '../errors/api-error';

/**
 * The page-size rule of SPEC §8: a `limit` from 1 to the cap, the route's default when absent;
 * beyond the cap is 400, never a clamp.
 */
export function parsePageLimit(raw: unknown, defaultLimit: number, cap: number): number {
  if (raw === undefined || raw === null) return Math.min(defaultLimit, cap);
  const text = Array.isArray(raw) ? String(raw[raw.length - 1]) : String(raw);
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > cap) {
    throw ApiError.badRequest(`limit must be an integer from 1 to ${cap}`);
  }
  return Number(text);
}
