import { ApiError } from '../errors/api-error';
import { CURSOR_MAX_LENGTH, encodeCursor } from './cursor-codec';
import { INT4, instant, integer, oneOf, text, uuid } from './cursor-fields';
import { cursorShape } from './cursor-shape';

const SCOPE = 'search:0190a5c8-0000-7000-8000-000000000000:abc';
const ID = '0190a5c8-0000-7000-8000-0000000000aa';
const AT = '2024-05-01T12:00:00.000Z';

const sut = cursorShape(instant, uuid, integer(INT4), text(64), oneOf([0, 1, 2]));
/** A cursor of `sut` whose JSON is written by hand, for tokens JSON.stringify never writes (1e999). */
const raw = (json: string) => Buffer.from(json, 'utf8').toString('base64url');
const VALID = [AT, ID, 42, 'knights', 1] as const;

function refusal(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

const expectRefused = (cursor: string) => {
  const err = refusal(() => sut.decode(cursor, SCOPE));
  expect(err).toBeInstanceOf(ApiError);
  expect(err).toMatchObject({ code: 'bad_request', status: 400, message: 'cursor is not a valid cursor for this list' });
};

describe('cursor shape', () => {
  it('reads back what it wrote, each value as its column takes it', () => {
    const cursor = sut.encode(SCOPE, [new Date(AT), ID, 42, 'knights', 1]);

    expect(sut.decode(cursor, SCOPE)).toEqual([AT, ID, 42, 'knights', 1]);
  });

  it.each<[string, number, unknown]>([
    ['an impossible date', 0, '2020-02-30T00:00:00.000Z'],
    ['a bare number as the timestamp', 0, '0'],
    ['a date PostgreSQL cannot store', 0, '+275760-09-13T00:00:00.000Z'],
    ['an id that is no uuid', 1, 'not-a-uuid'],
    ['an integer past int4', 2, 2 ** 31],
    ['an integer past what JSON carries exactly', 2, 2 ** 53 + 2],
    ['a fraction for an integer', 2, 0.5],
    ['a NUL character in a text', 3, 'kni\u0000ghts'],
    ['a text over its length', 3, 'k'.repeat(65)],
    ['a rank outside its set', 4, 3],
    ['a nested array', 1, [ID]],
    ['an object', 0, { at: AT }],
    ['null', 2, null],
  ])('refuses %s with 400 naming the cursor', (_case, at, forged) => {
    const values: unknown[] = [...VALID];
    values[at] = forged;

    expectRefused(raw(JSON.stringify([SCOPE, ...values])));
  });

  it.each([
    ['1e999 (Infinity once parsed)', '1e999'],
    ['-1e999', '-1e999'],
    ['2^53 + 1 (read as 2^53)', '9007199254740993'],
    ['a huge exponent', '1e308'],
  ])('refuses the JSON number %s for an integer', (_case, token) => {
    expectRefused(raw(`[${JSON.stringify(SCOPE)},"${AT}","${ID}",${token},"knights",1]`));
  });

  it('takes an integer JSON wrote with a fraction of zero, as JSON.parse reads it', () => {
    expect(sut.decode(raw(`[${JSON.stringify(SCOPE)},"${AT}","${ID}",42.0,"knights",1]`), SCOPE)[2]).toBe(42);
  });

  it.each<[string, string]>([
    ['another scope', encodeCursor('search:other', [...VALID])],
    ['too few values', encodeCursor(SCOPE, VALID.slice(0, 4))],
    ['too many values', encodeCursor(SCOPE, [...VALID, 1])],
    ['no values', encodeCursor(SCOPE, [])],
    ['an object', raw(JSON.stringify({ 0: SCOPE, 1: AT }))],
    ['a string', raw(JSON.stringify(SCOPE))],
    ['an array of arrays', raw(JSON.stringify([[SCOPE, ...VALID]]))],
    ['a huge input', 'A'.repeat(CURSOR_MAX_LENGTH * 100)],
    ['values that fill the whole length', encodeCursor(SCOPE, [AT, ID, 42, 'k'.repeat(CURSOR_MAX_LENGTH), 1])],
  ])('refuses %s with 400 naming the cursor', (_case, cursor) => {
    expectRefused(cursor);
  });
});
