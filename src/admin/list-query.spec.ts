import { ApiError } from '../common/errors/api-error';
import { containsPattern, parseOffset } from './list-query';

describe('parseOffset', () => {
  it.each([undefined, null])('is 0 when the offset is %p', (raw) => {
    expect(parseOffset(raw)).toBe(0);
  });

  it.each<[unknown, number]>([
    ['0', 0],
    ['7', 7],
    ['2147483647', 2147483647],
    [['3', '9'], 9],
  ])('accepts %p', (raw, expected) => {
    expect(parseOffset(raw)).toBe(expected);
  });

  it.each<[string, unknown]>([
    ['a negative number', '-1'],
    ['a fraction', '1.5'],
    ['a word', 'ten'],
    ['an empty string', ''],
    ['a value past the integer range', '2147483648'],
  ])('refuses %s with a bad_request naming offset', (_case, raw) => {
    let err: unknown;
    try {
      parseOffset(raw);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_request' });
    expect((err as ApiError).message).toMatch(/^offset /);
  });
});

describe('containsPattern', () => {
  it('wraps the text in % wildcards', () => {
    expect(containsPattern('wolf')).toBe('%wolf%');
  });

  it('escapes the LIKE wildcards and the escape character, so they match literally', () => {
    expect(containsPattern('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });
});
