import { ApiError } from '../errors/api-error';
import { parsePageLimit } from './page-limit';

const DEFAULT = 20;
const CAP = 100;

describe('parsePageLimit', () => {
  it.each([undefined, null])('returns the default when the limit is %p', (raw) => {
    expect(parsePageLimit(raw, DEFAULT, CAP)).toBe(DEFAULT);
  });

  it('returns the cap when absent and the default exceeds the cap', () => {
    expect(parsePageLimit(undefined, 50, 10)).toBe(10);
  });

  it.each<[unknown, number]>([
    ['1', 1],
    ['37', 37],
    [String(CAP), CAP],
    [5, 5],
  ])('accepts %p', (raw, expected) => {
    expect(parsePageLimit(raw, DEFAULT, CAP)).toBe(expected);
  });

  it('uses the last value of a repeated parameter', () => {
    expect(parsePageLimit(['5', '7'], DEFAULT, CAP)).toBe(7);
  });

  it('refuses a repeated parameter whose last value is invalid', () => {
    expect(() => parsePageLimit(['5', 'abc'], DEFAULT, CAP)).toThrow(ApiError);
  });

  it.each<[string, unknown]>([
    ['zero', '0'],
    ['one past the cap', String(CAP + 1)],
    ['a word', 'abc'],
    ['a fraction', '1.5'],
    ['a negative number', '-1'],
    ['an empty string', ''],
    ['a number with spaces', ' 5 '],
    ['an exponent', '1e1'],
    ['an empty array', []],
  ])('refuses %s with a bad_request naming the limit', (_case, raw) => {
    let err: unknown;
    try {
      parsePageLimit(raw, DEFAULT, CAP);
    } catch (e) {
      err = e;
    }

    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_request', status: 400 });
    expect((err as ApiError).message).toContain('limit');
  });
});
