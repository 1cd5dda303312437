import { JsonSyntaxError, lineOfPath, parseJsonText } from './json-lines';

const LEDGER = `{
 "items": [
  {
   "id": "a",
   "erasedAt": "2026-01-01T00:00:00.000Z"
  },
  { "id": "b", "erasedAt": "x" },
  {
   "id": "c"
  }
 ]
}
`;

/** The JsonSyntaxError of a text, which must not parse. */
function syntaxError(text: string): JsonSyntaxError {
  try {
    parseJsonText(text);
  } catch (e) {
    expect(e).toBeInstanceOf(JsonSyntaxError);
    return e as JsonSyntaxError;
  }
  throw new Error(`${JSON.stringify(text)} parsed`);
}

describe('parseJsonText', () => {
  it('parses what JSON.parse parses', () => {
    expect(parseJsonText(LEDGER)).toEqual(JSON.parse(LEDGER));
    expect(parseJsonText(' [1, -2.5e3, "\\u00e9\\n", true, false, null, {}] ')).toEqual([1, -2500, 'é\n', true, false, null, {}]);
  });

  it.each<[string, string, number, string]>([
    ['a missing comma', '{\n "a": 1\n "b": 2\n}', 3, "',' or '}' after a property"],
    ['a trailing comma', '{\n "items": [\n  1,\n ]\n}', 4, 'a value'],
    ['a property name without quotes', '{\n a: 1\n}', 2, 'a property name in double quotes'],
    ['a cut-off file', '{\n "items": [\n  {', 3, 'a property name in double quotes (the text ends there)'],
    ['an unclosed string', '{\n "a": "b\n}', 2, 'no control character (a line break, a tab) inside a string'],
    ['a bad escape', '{\n\n "a": "\\x"\n}', 3, 'an escape such as \\" or \\u00e9 after a backslash'],
    ['a leading zero', '[\n01\n]', 2, "',' or ']' after an element"],
    ['two documents', '{}\n{}', 2, 'the end of the text'],
    ['an empty file', '', 1, 'a value (the text ends there)'],
    ['npm\'s banner before the JSON', '\n> guildhall@1.0.0 svc\n> node bin/guildhall.js erasures:export\n\n{ "items": [] }', 2, 'a value'],
  ])('names the line of %s', (_case, text, line, expected) => {
    expect(() => JSON.parse(text)).toThrow();
    const err = syntaxError(text);
    expect({ line: err.line, expected: err.expected }).toEqual({ line, expected });
  });
});

describe('lineOfPath', () => {
  it('finds the line a value starts on, by keys and indexes', () => {
    expect(lineOfPath(LEDGER, [])).toBe(1);
    expect(lineOfPath(LEDGER, ['items'])).toBe(2);
    expect(lineOfPath(LEDGER, ['items', 0])).toBe(3);
    expect(lineOfPath(LEDGER, ['items', 0, 'erasedAt'])).toBe(5);
    expect(lineOfPath(LEDGER, ['items', 1, 'erasedAt'])).toBe(7);
    expect(lineOfPath(LEDGER, ['items', 2, 'id'])).toBe(9);
  });

  it('falls back to the deepest part of the path the text has', () => {
    expect(lineOfPath(LEDGER, ['items', 2, 'erasedAt'])).toBe(8);
    expect(lineOfPath(LEDGER, ['items', 7, 'id'])).toBe(2);
    expect(lineOfPath('{\n "other": 1\n}', ['items'])).toBe(1);
  });

  it('reads keys with escapes as JSON does', () => {
    expect(lineOfPath('{\n "a\\u0062": \n  1\n}', ['ab'])).toBe(3);
  });
});
