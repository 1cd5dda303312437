import { isBlankBody, jsonBodyProblem, MAX_JSON_DEPTH, parsedBodyProblem } from './json-body';

const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

describe('isBlankBody', () => {
  it('is true of no bytes and of whitespace alone, Unicode spaces and a byte order mark included', () => {
    for (const blank of ['', ' ', '\r\n\t ', '\u00a0', '\u2028 \u3000', '\ufeff']) expect(isBlankBody(Buffer.from(blank))).toBe(true);
  });

  it('is false of any body with something in it, whatever its first byte', () => {
    for (const body of ['{}', ' {}', '\n[1]', '"x"', '0', 'null', '\u00a0{}', '\u00e9', '\u0000', '\u007f']) expect(isBlankBody(Buffer.from(body))).toBe(false);
  });

  it('agrees with trimming the decoded text on every single byte and on bytes that are not UTF-8', () => {
    for (let b = 0; b < 256; b++) {
      const body = Buffer.from([b, 0x20]);
      expect(isBlankBody(body)).toBe(body.toString('utf8').trim() === '');
    }
  });
});

describe('jsonBodyProblem', () => {
  it('accepts ordinary JSON, brackets inside strings and escaped quotes included', () => {
    expect(jsonBodyProblem(Buffer.from('{"name":"a [{ b","q":"say \\"[[[[\\"","m":{"x":[1,{"y":2}]}}'))).toBeNull();
    expect(jsonBodyProblem(Buffer.from(`{"s":"${'['.repeat(1000)}"}`))).toBeNull();
    expect(jsonBodyProblem(Buffer.from('{"emoji":"😀","accents":"éè"}'))).toBeNull();
  });

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more`, () => {
    expect(jsonBodyProblem(Buffer.from(nested(MAX_JSON_DEPTH)))).toBeNull();
    expect(jsonBodyProblem(Buffer.from(nested(MAX_JSON_DEPTH + 1)))).toMatch(/nested deeper than 64 levels/);
  });

  it('refuses bytes that are not UTF-8 (a lone continuation byte, an overlong form, a bare surrogate)', () => {
    for (const bad of [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xc3, 0x28]]) {
      expect(jsonBodyProblem(Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bad), Buffer.from('"}')]))).toBe('request body is not valid UTF-8');
    }
  });
});

describe('parsedBodyProblem', () => {
  const check = (text: string) => parsedBodyProblem(Buffer.from(text), JSON.parse(text));

  it('refuses a lone surrogate escape in a value, nested or as a key', () => {
    for (const text of ['{"userId":"\\ud800"}', '{"a":{"b":["x\\udfff"]}}', '{"\\udbff":1}', '{"s":"\\udc00\\ud800"}']) {
      expect(check(text)).toMatch(/lone UTF-16 surrogate/);
    }
  });

  it('accepts escaped surrogate pairs and ordinary text', () => {
    expect(check('{"emoji":"\\ud83d\\ude00","plain":"é \\u00e9"}')).toBeNull();
    expect(check('{"a":1}')).toBeNull();
  });
});
