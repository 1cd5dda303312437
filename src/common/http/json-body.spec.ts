import { jsonBodyProblem, MAX_JSON_DEPTH, parsedBodyProblem } from './json-body';

const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

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
