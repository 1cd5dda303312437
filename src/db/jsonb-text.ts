const QUOTE = 34;
const SPACE = 32;
const BACKSLASH = 92;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;
const COLON = 58;

/** The index just past the string literal opening at `open`: its closing quote is the first one not escaped. */
function pastString(text: string, open: number): number {
  let close = open;
  for (;;) {
    close = text.indexOf('"', close + 1);
    let b = close - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((close - 1 - b) % 2 === 0) return close + 1;
  }
}

/**
 * A jsonb value's text (`data::text`) as JSON.stringify writes the value pg would parse it to,
 * about four times cheaper than parsing and writing it again. PostgreSQL prints a jsonb with a
 * space after each `:` and `,` and nowhere else outside strings, and escapes a string's characters
 * as JSON.stringify does: dropping those spaces gives the same bytes. A number may print otherwise
 * (`1.0`, digits past a double's), and JSON.parse puts integer-like keys first: a value holding
 * either is parsed and written.
 */
export function jsonOfJsonbText(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = pastString(text, i);
      // A key that reads as an integer comes first in the object JSON.parse builds, not in jsonb's order.
      const first = text.charCodeAt(i + 1);
      if (text.charCodeAt(end) === COLON && first >= ZERO && first <= NINE) return JSON.stringify(JSON.parse(text));
      i = end;
      continue;
    }
    if (c === SPACE) {
      out += text.slice(from, i);
      from = i + 1;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      return JSON.stringify(JSON.parse(text));
    }
    i++;
  }
  return from === 0 ? text : out + text.slice(from);
}
