import { jsonOfJsonbText } from './jsonb-text';

/** What pg hands the service for a jsonb column: JSON.parse of the same text. */
const asStringified = (text: string) => JSON.stringify(JSON.parse(text));

describe('jsonOfJsonbText', () => {
  // Each as PostgreSQL 15 prints the jsonb (`$1::jsonb::text`).
  it.each([
    '{}',
    '[]',
    '{"a": null, "b": true, "c": false}',
    '{"s": "a\\", \\"b"}',
    '{"s": "x\\\\", "t": "y"}',
    '{"s": "\\\\\\"", "u": ["\\\\\\\\", "\\"", ""]}',
    '{"s": "tab\\there\\nnl\\r\\b\\f\\u0001\\u001f\u007f"}',
    '{"s": "é漢字😀 \u2028\u2029"}',
    '{"nested": {"arr": [[], {}, [null, {"k": "v: w, x"}]]}}',
    '{"": "", "key with \\": \\"": "v"}',
    '{"group": {"id": "019a3f6e-5b20-7c41-9d3e-2a1f0c4b8e77", "kind": "guild", "name": "Knights, of: Dawn"}, "reason": null, "expiresAt": "2026-11-22T02:35:10.123Z"}',
    '"a string, alone"',
    'null',
  ])('writes %s as JSON.stringify writes its value', (text) => {
    expect(jsonOfJsonbText(text)).toBe(asStringified(text));
  });

  it.each(['{"m": 100, "n": 1.0, "x": 0.1, "z": 0}', '{"e": 0.0000001, "m": -2.5, "big": 12345678901234567000}', '[1.50, -0]'])(
    'writes a value holding numbers (%s) as JSON.stringify does, though PostgreSQL prints some otherwise',
    (text) => {
      expect(jsonOfJsonbText(text)).toBe(asStringified(text));
    },
  );

  it.each(['{"a": "x", "10": "y"}', '{"b": {"7": true, "ab": null}}', '{"k": "2026-11-22", "9": "z"}'])(
    'writes a value with integer-like keys (%s) in the order JSON.parse gives them',
    (text) => {
      expect(jsonOfJsonbText(text)).toBe(asStringified(text));
    },
  );

  it('keeps the spaces inside strings, after any run of backslashes', () => {
    for (let n = 0; n < 6; n++) {
      const s = `${'\\'.repeat(n)}", "x": "y`;
      const text = `{"k": ${JSON.stringify(s)}, "l": [${JSON.stringify(s)}, true]}`;
      expect(jsonOfJsonbText(text)).toBe(asStringified(text));
    }
  });
});
