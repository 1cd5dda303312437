import { ApiError } from '../errors/api-error';
import { isInstantText, parseInstant } from './parse-instant';

describe('parseInstant', () => {
  it('returns undefined when absent', () => {
    expect(parseInstant(undefined, 'from')).toBeUndefined();
  });

  it.each<[string, string]>([
    ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T10:20:30Z', '2026-01-01T10:20:30.000Z'],
    ['2026-01-01T10:20Z', '2026-01-01T10:20:00.000Z'],
    ['2026-01-01T10:20:30.5Z', '2026-01-01T10:20:30.500Z'],
    ['2026-01-01T10:20:30.123456Z', '2026-01-01T10:20:30.123Z'],
    ['2026-01-01T02:00:00+02:00', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T02:00:00+0200', '2026-01-01T00:00:00.000Z'],
    ['2025-12-31T19:00:00-05:00', '2026-01-01T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2026-01-01T00:00:00', '2026-01-01T00:00:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ['0001-01-01T23:59:00+23:59', '0001-01-01T00:00:00.000Z'],
  ])('reads %s as %s (UTC when no zone is given)', (raw, expected) => {
    expect(parseInstant(raw, 'from')?.toISOString()).toBe(expected);
  });

  it.each<[string, unknown]>([
    ['a word', 'yesterday'],
    ['an empty string', ''],
    ['epoch milliseconds', '1700000000000'],
    ['a day that does not exist', '2023-02-29'],
    ['month 13', '2026-13-01'],
    ['year 0, which Postgres cannot store', '0000-01-01T00:00:00Z'],
    ['hour 24', '2026-01-01T24:00:00Z'],
    ['minute 60', '2026-01-01T00:60:00Z'],
    ['a space instead of T', '2026-01-01 00:00:00Z'],
    ['a repeated parameter', ['2026-01-01', '2026-01-02']],
    ['trailing garbage', '2026-01-01T00:00:00Zjunk'],
    // Valid as written, but the instant falls in year 0 or 10000, which toISOString writes in a form PostgreSQL refuses.
    ['an offset reaching back into year 0', '0001-01-01T00:00:00+23:59'],
    ['an offset reaching on into year 10000', '9999-12-31T23:59:59-23:59'],
  ])('refuses %s with a bad_request naming the field', (_case, raw) => {
    let err: unknown;
    try {
      parseInstant(raw, 'since');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_request', status: 400 });
    expect((err as ApiError).message).toMatch(/^since /);
  });
});

describe('isInstantText', () => {
  it('takes the grammar and calendar of parseInstant wherever the offset moves the instant', () => {
    expect(isInstantText('0001-01-01T00:00:00+23:59')).toBe(true);
    expect(isInstantText('9999-12-31T23:59:59-23:59')).toBe(true);
    expect(isInstantText('2026-01-01')).toBe(true);
  });

  it.each(['2023-02-29', '0000-01-01', '2026-01-01T24:00:00Z', '+275760-09-13T00:00:00.000Z', '0', 7, undefined])('refuses %p', (raw) => {
    expect(isInstantText(raw)).toBe(false);
  });
});
