import { ApiError } from '../errors/api-error';
import { isUuid } from '../ids';
import { decodeCursor, encodeCursor } from './cursor-codec';

/** A position in a list ordered by (timestamp, id) descending. */
export interface Keyset {
  at: string;
  id: string;
}

/** The cursor after a row: its exact stored timestamp (millisecond precision) and id. */
export function encodeKeyset(scope: string, at: Date, id: string): string {
  return encodeCursor(scope, [at.toISOString(), id]);
}

export function decodeKeyset(cursor: string | undefined, scope: string): Keyset | undefined {
  if (cursor === undefined) return undefined;
  const [at, id] = decodeCursor(cursor, scope, ['string', 'string']) as [string, string];
  if (Number.isNaN(Date.parse(at)) || !isUuid(id)) throw ApiError.badRequest('cursor is not a valid cursor for this list');
  return { at, id };
}
