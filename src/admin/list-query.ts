import { ApiError } from '../common/errors/api-error';

/** The fixed page cap of the offset-based admin lists (SPEC §8: admin groups and members lists). */
export const ADMIN_LIST_CAP = 100;
/** Past this an offset names no real page; it also keeps the value inside Postgres' integer range. */
const MAX_OFFSET = 2_147_483_647;

/** `offset` of an offset-based admin list: an integer from 0, default 0; anything else is 400. */
export function parseOffset(raw: unknown): number {
  if (raw === undefined || raw === null) return 0;
  const text = Array.isArray(raw) ? String(raw[raw.length - 1]) : String(raw);
  if (!/^\d+$/.test(text) || Number(text) > MAX_OFFSET) {
    throw ApiError.badRequest(`offset must be an integer from 0 to ${MAX_OFFSET}`);
  }
  return Number(text);
}

/** A case-insensitive substring pattern for ILIKE: the search text matches literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
