import fc from 'fast-check';

/**
 * Cursors a hostile client forges from a real one (DECISIONS 32), each with the answer it must get.
 * A cursor is base64url of the JSON array `[scope, ...values]`; the forgeries keep the scope and
 * the arity and change one value (or break the envelope), so that the value is what is judged.
 */

/** What a forged cursor must get: a page, a 400 naming cursor, or either (the list's own rule decides). */
export type Verdict = 'valid' | 'invalid' | 'either';

export interface Forged {
  cursor: string;
  verdict: Verdict;
  /** The JSON inside, for the failure report. */
  json: string;
}

type Kind = 'timestamp' | 'uuid' | 'number' | 'text';

const ISO_MS = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LONE_SURROGATE = /\p{Cs}/u;
/** Longer than any key a list is ordered by could be: refused whatever the list. */
const TOO_LONG = 10_000;
/** As long as a group name (the longest text key), so a text key of this length is one a list could issue. */
const SURELY_SHORT = 120;

/** What a real cursor's value is, by its form: a service writes timestamps as toISOString does. */
const kindOf = (v: unknown): Kind =>
  typeof v === 'number' ? 'number' : typeof v === 'string' && ISO_MS.test(v) ? 'timestamp' : typeof v === 'string' && UUID.test(v) ? 'uuid' : 'text';

const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const daysIn = (y: number, m: number) => [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];

/** The stored form, a date that exists, a year PostgreSQL and JavaScript both take (1-9999). */
function isStoredInstant(v: string): boolean {
  const m = ISO_MS.exec(v);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  return y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysIn(y, mo) && h <= 23 && mi <= 59 && s <= 59;
}

/**
 * The verdict on `v` in place of a real value of `kind`. `last` is the row id that breaks ties,
 * which any uuid may be; an earlier uuid may name an owner the cursor must match (a user), and an
 * integer is taken within its column's range (a count from 0, a rank 0-2), so those may go either way.
 */
function verdictOn(kind: Kind, v: unknown, last: boolean): Verdict {
  switch (kind) {
    case 'timestamp':
      return typeof v === 'string' && isStoredInstant(v) ? 'valid' : 'invalid';
    case 'uuid':
      return typeof v === 'string' && UUID.test(v) ? (last ? 'valid' : 'either') : 'invalid';
    case 'number':
      // The lists' numbers are integers: a fraction, or one past what JSON carries exactly, is no key.
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) return 'invalid';
      return v >= 0 && v <= 2 ? 'valid' : 'either';
    case 'text':
      if (typeof v !== 'string' || v.includes('\u0000') || LONE_SURROGATE.test(v) || v.length > TOO_LONG) return 'invalid';
      return v.length <= SURELY_SHORT ? 'valid' : 'either';
  }
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const json = (v: unknown) => JSON.stringify(v);

/** Timestamps of every odd form, as JSON tokens. */
const timestamps = (real: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      '0',
      '2020-02-30',
      '+275760-09-13T00:00:00.000Z',
      '-271821-04-20T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z',
      '+010000-01-01T00:00:00.000Z',
      '2020-02-29T00:00:00.000Z',
      '2021-02-29T00:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      '2000-02-29T00:00:00.000Z',
      '2020-01-01T24:00:00.000Z',
      '1970-01-01T00:00:00.000Z',
      '0001-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      'NaN',
      'Invalid Date',
      '',
    ),
    // Every field, one past its range now and then.
    fc
      .record({ y: fc.integer({ min: 0, max: 10_000 }), mo: fc.integer({ min: 0, max: 13 }), d: fc.integer({ min: 0, max: 32 }), h: fc.integer({ min: 0, max: 24 }), mi: fc.integer({ min: 0, max: 60 }), s: fc.integer({ min: 0, max: 60 }), ms: fc.integer({ min: 0, max: 999 }) })
      .map(({ y, mo, d, h, mi, s, ms }) => `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}Z`),
    // Anything JavaScript can hold, in the form it prints (six-digit and negative years included).
    fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }).map((d) => d.toISOString()),
    // The real one, written another way.
    fc.constantFrom(
      real.replace('.000Z', 'Z').replace(/\.\d{3}Z$/, 'Z'),
      real.replace('Z', '000Z'),
      real.replace('Z', '+00:00'),
      real.replace('T', ' '),
      real.toLowerCase(),
      ` ${real}`,
      `${real}\n`,
      String(Date.parse(real)),
    ),
  ).map(json);

const numbers: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '0', '1', '2', '3', '-1', '-0', '0.5', '1.0', '1e0', '2e0', '1E2',
    '2147483647', '2147483648', '-2147483648', '-2147483649', '4294967296',
    '9007199254740991', '9007199254740992', '9007199254740993', '-9007199254740993',
    '1.7976931348623157e308', '1e308', '1e309', '-1e309', '5e-324', '1e-400', '123456789012345678901234567890',
  ),
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(json),
);

const strings: fc.Arbitrary<string> = fc.oneof(
  // NaN-ish, and numbers as text.
  fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e309', '0x1F', '1_000', '１２', 'null', 'undefined', 'true', '0', '2', '-0').map(json),
  // NUL characters, alone or inside text.
  fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })).map(([a, b]) => json(`${a}\u0000${b}`)),
  fc.constantFrom('"\\u0000"', '"\\ud800"', '"a\\udc00b"', '"\\udc00\\ud800"', '"knights\\u0000"'),
  // Very long text.
  fc.tuple(fc.constantFrom(100, 120, 121, 1000, 1001, 1400, 2048, 5000, 20_000), fc.constantFrom('x', 'é', '😀')).map(([n, c]) => json(c.repeat(n))),
  fc.string({ maxLength: 40 }).map(json),
  fc.string({ unit: 'binary', maxLength: 20 }).map(json),
  fc.uuid().map((u) => json(u.toLowerCase())),
  fc.uuid().map((u) => json(u.toUpperCase())),
  fc.uuid().map((u) => json(`${u.slice(0, 35)}g`)),
  fc.uuid().map((u) => json(u.replace(/-/g, ''))),
);

/** Nested arrays and objects, and the other JSON values. */
const structured: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('null', 'true', 'false', '[]', '{}', '[[[[[]]]]]', `${'['.repeat(500)}${']'.repeat(500)}`, '{"__proto__":{"polluted":true}}'),
  fc.jsonValue({ maxDepth: 3 }).filter((v) => typeof v === 'object' && v !== null).map(json),
);

const encode = (jsonText: string) => Buffer.from(jsonText, 'utf8').toString('base64url');

/** Forged cursors from a real one: one value replaced, the envelope broken, or the real one untouched. */
export function forgedFrom(real: string): fc.Arbitrary<Forged> {
  const [scope, ...values] = JSON.parse(Buffer.from(real, 'base64url').toString('utf8')) as [string, ...unknown[]];
  const tokens = values.map(json);
  const kinds = values.map(kindOf);
  const realTime = values.find((v) => kindOf(v) === 'timestamp') as string | undefined;
  const replacement = fc.oneof(
    { weight: 3, arbitrary: timestamps(realTime ?? '2026-01-01T00:00:00.000Z') },
    { weight: 3, arbitrary: numbers },
    { weight: 3, arbitrary: strings },
    { weight: 1, arbitrary: structured },
    // Another value of the same cursor, in the wrong place.
    { weight: 1, arbitrary: fc.constantFrom(...tokens) },
  );
  const mutated = fc.tuple(fc.nat(values.length - 1), replacement).map(([at, token]): Forged => {
    const all = [...tokens];
    all[at] = token;
    const text = `[${[json(scope), ...all].join(',')}]`;
    return { cursor: encode(text), verdict: verdictOn(kinds[at], JSON.parse(token), at === values.length - 1), json: text };
  });
  const broken = fc
    .oneof(
      fc.constantFrom(`${scope}x`, scope.slice(0, -1), scope.toUpperCase() === scope ? `x${scope}` : scope.toUpperCase(), '', `${scope}\u0000`).map((s) => `[${[json(s), ...tokens].join(',')}]`),
      fc.constantFrom(`[${[json(scope), ...tokens.slice(0, -1)].join(',')}]`, `[${[json(scope), ...tokens, '1'].join(',')}]`, `[${json(scope)}]`, '[]'),
      fc.constantFrom(`[[${[json(scope), ...tokens].join(',')}]]`, json({ scope, values }), json(scope), 'null', '42', `[${[json(scope), ...tokens].join(',')}`, 'not json'),
    )
    .map((text): Forged => ({ cursor: encode(text), verdict: 'invalid', json: text }));
  const garbage = fc
    .oneof(fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !/^[A-Za-z0-9_-]+$/.test(s)), fc.constantFrom('A'.repeat(8_000), `${real}=`, `${real}.`, real.slice(0, -1) || 'x'))
    .map((cursor): Forged => ({ cursor, verdict: cursor === real.slice(0, -1) ? 'either' : 'invalid', json: '(not base64url JSON)' }));
  return fc.oneof(
    { weight: 14, arbitrary: mutated },
    { weight: 3, arbitrary: broken },
    { weight: 1, arbitrary: garbage },
    { weight: 1, arbitrary: fc.constant<Forged>({ cursor: real, verdict: 'valid', json: '(the real cursor)' }) },
  );
}
