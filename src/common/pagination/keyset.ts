import { instant, uuid } from './cursor-fields';
import { cursorShape } from './cursor-shape';

/** A position in a list ordered by (timestamp, id) descending. */
export interface Keyset {
  at: string;
  id: string;
}

/** The cursor of most lists: a row's exact stored timestamp (millisecond precision) and its id. */
const KEYSET = cursorShape(instant, uuid);

export function encodeKeyset(scope: string, at: Date, id: string): string {
  return KEYSET.encode(scope, [at, id]);
}

export function decodeKeyset(cursor: string | undefined, scope: string): Keyset | undefined {
  if (cursor === undefined) return undefined;
  const [at, id] = KEYSET.decode(cursor, scope);
  return { at, id };
}
