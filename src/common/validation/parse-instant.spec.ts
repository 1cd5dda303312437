import { ApiError } from '../errors/api-error';
import { parseInstant } from './parse-instant';

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
