import { ApiError } from '../errors/api-error';

/**
 * Opaque keyset cursors (SPEC §4 Conventions). A cursor names the scope it was issued for (the
 * list and its owner, e.g. `groups:<gameId>`) and is refused with 400 anywhere else.
 */
export type CursorValue = string | number;

export function encodeCursor(scope: string, values: readonly CursorValue[]): string {
  return Buffer.from(JSON.stringify([scope, ...values]), 'utf8').toString('base64url');
}

/** The keyset values of a cursor issued for `scope`, checked against the expected `shape`. */
export function decodeCursor(
  cursor: string,
  scope: string,
  shape: readonly ('string' | 'number')[],
): CursorValue[] {
  const invalid = () => ApiError.badRequest('cursor is not a valid cursor for this list');
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) throw invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(decoded) || decoded[0] !== scope || decoded.length !== shape.length + 1) throw invalid();
  const values = decoded.slice(1) as unknown[];
  values.forEach((v, i) => {
    if (typeof v !== shape[i] || (typeof v === 'number' && !Number.isFinite(v))) throw invalid();
  });
  return values as CursorValue[];
}
