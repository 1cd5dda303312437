import { decodeCursor, encodeCursor, invalidCursor } from './cursor-codec';
import type { CursorField } from './cursor-fields';

type Fields = readonly CursorField<never, unknown>[];
type Written<F extends Fields> = { -readonly [K in keyof F]: F[K] extends CursorField<infer W, unknown> ? W : never };
type Read<F extends Fields> = { -readonly [K in keyof F]: F[K] extends CursorField<never, infer R> ? R : never };

/** A list's cursor: its values, declared once, so that what is written is what is read back. */
export interface CursorShape<W extends readonly unknown[], R extends readonly unknown[]> {
  encode(scope: string, values: W): string;
  /** The values of a cursor issued for `scope`, each as its column takes it; anything else is 400 naming `cursor`. */
  decode(cursor: string, scope: string): R;
}

export function cursorShape<const F extends Fields>(...fields: F): CursorShape<Written<F>, Read<F>> {
  return {
    encode: (scope, values) => encodeCursor(scope, fields.map((f, i) => (f as CursorField<unknown, unknown>).write(values[i]))),
    decode: (cursor, scope) =>
      decodeCursor(cursor, scope, fields.length).map((raw, i) => {
        const value = fields[i].read(raw);
        if (value === undefined) throw invalidCursor();
        return value;
      }) as Read<F>,
  };
}
