import { isUuid } from '../ids';
import type { CursorValue } from './cursor-codec';

/**
 * One value of a cursor: how a row's key is written into it, and how it is read back, checked as
 * the column it is compared with would take it. `read` answers undefined for anything else, so
 * that a forged value is refused with 400 before any query runs instead of failing in PostgreSQL
 * as a 500 that logs the statement (DECISIONS 32).
 */
export interface CursorField<W, R = W> {
  write(value: W): CursorValue;
  read(raw: unknown): R | undefined;
}

/** What `Date.prototype.toISOString` writes for a year of four digits. */
const ISO_MS = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A timestamptz key, carried as the text toISOString writes (the stored precision is the
 * millisecond). Only that text is read back: a date that exists (it must print back unchanged,
 * which refuses `2020-02-30` and `24:00`) in a year from 1 to 9999. Date.parse takes far more
 * (`0`, year 0, the six-digit years past 9999) that PostgreSQL refuses.
 */
export const instant: CursorField<Date, string> = {
  write: (at) => at.toISOString(),
  read: (raw) => {
    if (typeof raw !== 'string') return undefined;
    const m = ISO_MS.exec(raw);
    if (!m || m[1] === '0000') return undefined;
    const at = new Date(raw);
    return !Number.isNaN(at.getTime()) && at.toISOString() === raw ? raw : undefined;
  },
};

/** A uuid key, in the lowercase form PostgreSQL prints. */
export const uuid: CursorField<string> = {
  write: (id) => id,
  read: (raw) => (typeof raw === 'string' && isUuid(raw) ? raw : undefined),
};

/** The range of a PostgreSQL integer (int4). */
export const INT4 = { min: -(2 ** 31), max: 2 ** 31 - 1 } as const;
/** A bigint (int8) as far as a JSON number carries it exactly. */
export const INT8_EXACT = { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER } as const;

/** An integer key within `range` (the column's, or narrower when the service never writes more). */
export function integer(range: { min: number; max: number }): CursorField<number> {
  return {
    write: (n) => n,
    read: (raw) => (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= range.min && raw <= range.max ? raw : undefined),
  };
}

/** A double precision key: any finite number (JSON cannot carry NaN, but `1e999` parses as Infinity). */
export const float8: CursorField<number> = {
  write: (n) => n,
  read: (raw) => (typeof raw === 'number' && Number.isFinite(raw) ? raw : undefined),
};

/** A lone UTF-16 surrogate: with the u flag a well-formed pair is one code point and does not match. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A text key of at most `maxLength` UTF-16 units. PostgreSQL text cannot hold NUL, and a lone
 * surrogate is no text the service ever stored (it would reach the database as U+FFFD).
 */
export function text(maxLength: number): CursorField<string> {
  return {
    write: (s) => s,
    read: (raw) => (typeof raw === 'string' && raw.length <= maxLength && !raw.includes('\u0000') && !LONE_SURROGATE.test(raw) ? raw : undefined),
  };
}

/** A key from a fixed set (an enum, a rank). */
export function oneOf<const T extends CursorValue>(values: readonly T[]): CursorField<T> {
  return {
    write: (v) => v,
    read: (raw) => (values as readonly unknown[]).includes(raw) ? (raw as T) : undefined,
  };
}
