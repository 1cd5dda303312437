import { createHash } from 'node:crypto';
import { ApiError } from '../errors/api-error';

/**
 * Opaque keyset cursors (SPEC §4 Conventions): base64url of the JSON array `[scope, ...values]`.
 * A cursor names the scope it was issued for (the list and its owner, e.g. `groups:<gameId>`) and
 * is refused with 400 anywhere else (DECISIONS 32). This is the envelope only: what each value may
 * be is declared per list with cursorShape (cursor-shape.ts).
 */
export type CursorValue = string | number;

/** Longest cursor accepted: far above any the service issues, and a bound on what is parsed. */
export const CURSOR_MAX_LENGTH = 2048;

export const invalidCursor = (): ApiError => ApiError.badRequest('cursor is not a valid cursor for this list');

/**
 * A value of any length as a cursor's scope names it: a user id (SPEC §8 sets no cap on one)
 * written raw would make the cursor of a long id longer than CURSOR_MAX_LENGTH, so that its next
 * page were refused. Its SHA-256 is 43 characters and still tells every id apart.
 */
export const scopeDigest = (value: string): string => createHash('sha256').update(value, 'utf8').digest('base64url');

export function encodeCursor(scope: string, values: readonly CursorValue[]): string {
  return Buffer.from(JSON.stringify([scope, ...values]), 'utf8').toString('base64url');
}

/** The `arity` raw values of a cursor issued for `scope`, still to be checked one by one. */
export function decodeCursor(cursor: unknown, scope: string, arity: number): unknown[] {
  if (typeof cursor !== 'string' || cursor.length > CURSOR_MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(decoded) || decoded.length !== arity + 1 || decoded[0] !== scope) throw invalidCursor();
  return decoded.slice(1);
}
