import { ApiError } from '../errors/api-error';

/** `YYYY-MM-DD`, optionally `THH:MM[:SS[.fff]]` and a zone (`Z`, `±HH:MM`, `±HHMM`). */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * An ISO 8601 query timestamp (`since`, analytics `from`/`to`), as a Date with millisecond
 * precision; undefined when absent. A bare date is UTC midnight and a time without a zone is UTC,
 * so the answer never depends on the server's time zone. Anything else, including impossible
 * calendar values such as `2024-02-30`, is 400 naming the field.
 */
export function parseInstant(raw: unknown, field: string): Date | undefined {
  if (raw === undefined) return undefined;
  const invalid = () => ApiError.badRequest(`${field} must be an ISO 8601 timestamp (for example 2026-01-01T00:00:00.000Z)`);
  if (typeof raw !== 'string') throw invalid();
  const m = ISO.exec(raw);
  if (!m) throw invalid();
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  if (year < 1 || month < 1 || month > 12 || Number(d) < 1 || Number(d) > daysIn(year, month)) throw invalid();
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw invalid();
  const ms = frac ? `.${frac.padEnd(3, '0').slice(0, 3)}` : '';
  const offset = zone === undefined || zone === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const at = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${ms}${offset}`);
  if (Number.isNaN(at.getTime())) throw invalid();
  return at;
}
