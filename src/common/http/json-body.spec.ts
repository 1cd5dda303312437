import { FastifyAdapter } from '@nestjs/platform-fastify';
import { isBlankBody, jsonBodyProblem, MAX_JSON_DEPTH, parseClearJson, parsedBodyProblem } from './json-body';

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

describe('parseClearJson', () => {
  // Fastify's own JSON parser, as the application takes it.
  const fastifyJson = new FastifyAdapter().getInstance().getDefaultJsonParser('error', 'error') as unknown as (
    req: unknown,
    body: Buffer,
    done: (err: Error | null, value?: unknown) => void,
  ) => void;
  /** What the checked path (the depth scan, Fastify's parser, the surrogate check) makes of a body. */
  const checked = (body: Buffer): { value: unknown } | { problem: string } | { refused: true } => {
    const problem = jsonBodyProblem(body);
    if (problem) return { problem };
    let result: { value: unknown } | { problem: string } | { refused: true } = { refused: true };
    fastifyJson({}, body, (err, value) => {
      const unstorable = err ? null : parsedBodyProblem(body, value);
      result = err ? { refused: true } : unstorable ? { problem: unstorable } : { value };
    });
    return result;
  };
  const agrees = (text: string | Buffer) => {
    const body = Buffer.isBuffer(text) ? text : Buffer.from(text);
    const clear = parseClearJson(body);
    if (clear !== undefined) expect(clear).toEqual(checked(body));
    return clear;
  };

  it('parses ordinary bodies itself, as the checked path parses them', () => {
    for (const text of ['{"checks":[{"userId":"a","groupId":"b","permission":"c"}]}', '[1,2.5,-3e2,true,false,null]', '"x"', '0', 'null', ' {"a" : {"b":[{}]}} ', '{"emoji":"😀","q":"say \\"[[\\""}']) {
      expect(agrees(text)).toEqual({ value: JSON.parse(text) });
    }
  });

  it(`refuses ${MAX_JSON_DEPTH + 1} levels with the checked path's words and keeps ${MAX_JSON_DEPTH}, of arrays and of objects`, () => {
    const objects = (n: number) => `${'{"a":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`;
    for (const nest of [nested, objects]) {
      expect(agrees(nest(MAX_JSON_DEPTH))).toHaveProperty('value');
      expect(agrees(nest(MAX_JSON_DEPTH + 1))).toEqual({ problem: `request body is nested deeper than ${MAX_JSON_DEPTH} levels` });
    }
    expect(agrees(`[${nested(MAX_JSON_DEPTH - 1)},{"x":[${nested(MAX_JSON_DEPTH - 1)}]}]`)).toEqual({ problem: expect.stringMatching(/nested deeper/) });
  });

  it('leaves to the checked path every body that could fail its checks: escapes, the refused keys, broken JSON, a byte order mark, bytes that are not UTF-8', () => {
    for (const text of ['{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '{"\\u005f_proto__":1}', '{"a":"\\ud800"}', '{"a":"\\u00e9"}', '{"a":', '{"a":1}}', '\ufeff{"a":1}', `${nested(MAX_JSON_DEPTH + 1)}x`]) {
      expect(parseClearJson(Buffer.from(text))).toBeUndefined();
    }
    expect(parseClearJson(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]))).toBeUndefined();
  });

  it('agrees with the checked path on 1,000 random bodies near the depth limit, a third of them too deep', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % n);
    const leaf = () => ['1', '"s"', 'null', '"[{"', 'true', '"\\"x"'][rand(6)];
    // A spine of `depth` levels with shallow branches beside it, arrays and objects mixed.
    const build = (depth: number): string => {
      if (depth === 0) return leaf();
      const parts = Array.from({ length: rand(3) }, () => build(Math.min(rand(4), depth - 1)));
      parts.splice(rand(parts.length + 1), 0, build(depth - 1));
      return rand(2) ? `[${parts.join(',')}]` : `{${parts.map((p, i) => `"k${i}":${p}`).join(',')}}`;
    };
    let deep = 0;
    for (let i = 0; i < 1000; i++) {
      const clear = agrees(build(MAX_JSON_DEPTH - 3 + rand(6)));
      expect(clear).toBeDefined();
      if (clear && 'problem' in clear) deep++;
    }
    expect(deep).toBeGreaterThan(150);
    expect(deep).toBeLessThan(850);
  });
});
