/**
 * Lines of a JSON text, for messages about a file an operator can open at the right place:
 * JSON.parse's errors give a position only for some mistakes (and never a line on Node 20), and a
 * parsed value no longer knows where it was written.
 */

export type JsonPath = readonly (string | number)[];

/** A JSON text that does not parse: the line of its first mistake, and what was expected there. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly expected: string,
  ) {
    super(`line ${line}: expected ${expected}`);
  }
}

/** JSON.parse, with a JsonSyntaxError naming the line of the first mistake when the text is not JSON. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    new Walker(text, []).document();
    throw err;
  }
}

/**
 * The line on which the value at `path` starts in `text` (JSON that parses), or the value of the
 * longest start of the path the text has: the entry, when the entry has no such field.
 */
export function lineOfPath(text: string, path: JsonPath): number {
  const walker = new Walker(text, path);
  walker.document();
  return lineAt(text, walker.found);
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/** Reads a JSON text as the grammar has it, noting where the values along `path` start. */
class Walker {
  private pos = 0;
  found = 0;

  constructor(
    private readonly text: string,
    private readonly path: JsonPath,
  ) {}

  document(): void {
    this.space();
    this.value(0);
    this.space();
    if (this.pos < this.text.length) this.fail('the end of the text');
  }

  /** `depth`: how much of the path leads here, or null off the path. */
  private value(depth: number | null): void {
    if (depth !== null) this.found = this.pos;
    const c = this.text[this.pos];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    NUMBER.lastIndex = this.pos;
    if (NUMBER.test(this.text)) {
      this.pos = NUMBER.lastIndex;
      return;
    }
    const word = ['true', 'false', 'null'].find((w) => this.text.startsWith(w, this.pos));
    if (!word) this.fail('a value');
    this.pos += word.length;
  }

  private object(depth: number | null): void {
    this.pos++;
    this.space();
    if (this.take('}')) return;
    for (;;) {
      if (this.text[this.pos] !== '"') this.fail('a property name in double quotes');
      const start = this.pos;
      this.string();
      const key = JSON.parse(this.text.slice(start, this.pos)) as string;
      this.space();
      if (!this.take(':')) this.fail("':' after a property name");
      this.space();
      this.value(this.next(depth, key));
      this.space();
      if (this.take('}')) return;
      if (!this.take(',')) this.fail("',' or '}' after a property");
      this.space();
    }
  }

  private array(depth: number | null): void {
    this.pos++;
    this.space();
    if (this.take(']')) return;
    for (let index = 0; ; index++) {
      this.value(this.next(depth, index));
      this.space();
      if (this.take(']')) return;
      if (!this.take(',')) this.fail("',' or ']' after an element");
      this.space();
    }
  }

  private string(): void {
    for (this.pos++; ; ) {
      const c = this.text[this.pos];
      if (c === undefined) this.fail('a closing double quote');
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c === '\\') {
        ESCAPE.lastIndex = this.pos;
        if (!ESCAPE.test(this.text)) this.fail('an escape such as \\" or \\u00e9 after a backslash');
        this.pos = ESCAPE.lastIndex;
      } else if (c < ' ') {
        this.fail('no control character (a line break, a tab) inside a string');
      } else {
        this.pos++;
      }
    }
  }

  private next(depth: number | null, key: string | number): number | null {
    return depth !== null && depth < this.path.length && this.path[depth] === key ? depth + 1 : null;
  }

  private take(c: string): boolean {
    if (this.text[this.pos] !== c) return false;
    this.pos++;
    return true;
  }

  private space(): void {
    while (' \t\n\r'.includes(this.text[this.pos] ?? 'x')) this.pos++;
  }

  private fail(expected: string): never {
    throw new JsonSyntaxError(lineAt(this.text, this.pos), this.pos >= this.text.length ? `${expected} (the text ends there)` : expected);
  }
}
