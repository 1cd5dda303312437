import { ApiError } from '../errors/api-error';

/** `YYYY-MM-DD`, optionally `THH:MM[:SS[.fff]]` and a zone (`Z`, `±HH:MM`, `±HHMM`). */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The instant `raw` writes by the grammar above and the calendar (no `2024-02-30`, no year 0), or undefined. */
function instantOf(raw: unknown): Date | undefined {
  if (typeof raw !== 'string') return undefined;
  const m = ISO.exec(raw);
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  if (year < 1 || month < 1 || month > 12 || Number(d) < 1 || Number(d) > daysIn(year, month)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const ms = frac ? `.${frac.padEnd(3, '0').slice(0, 3)}` : '';
  const offset = zone === undefined || zone === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const at = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${ms}${offset}`);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/**
 * True for a timestamp of the grammar and calendar parseInstant reads, wherever its offset moves
 * the instant: for a caller that hands the text itself to PostgreSQL (the audit's `before`).
 */
export const isInstantText = (raw: unknown): boolean => instantOf(raw) !== undefined;

/**
 * An ISO 8601 query timestamp (`since`, analytics `from`/`to`), as a Date with millisecond
 * precision; undefined when absent. A bare date is UTC midnight and a time without a zone is UTC,
 * so the answer never depends on the server's time zone. Anything else, including impossible
 * calendar values such as `2024-02-30` and an offset that moves the instant out of years 1-9999
 * (toISOString would write year 0 or `+010000`, which PostgreSQL refuses), is 400 naming the field.
 */
export function parseInstant(raw: unknown, field: string): Date | undefined {
  if (raw === undefined) return undefined;
  const at = instantOf(raw);
  if (!at || at.getUTCFullYear() < 1 || at.getUTCFullYear() > 9999) {
    throw ApiError.badRequest(`${field} must be an ISO 8601 timestamp (for example 2026-01-01T00:00:00.000Z)`);
  }
  return at;
}
