import { ApiError } from '../common/errors/api-error';
import { parseBefore } from './audit-query';

describe('parseBefore', () => {
  it('reads an entry id as an exact keyset', () => {
    expect(parseBefore('0190a5c8-0000-7000-8000-000000000000')).toEqual({ id: '0190a5c8-0000-7000-8000-000000000000' });
  });

  it.each([
    '2026-01-01',
    '2020-02-29T00:00:00.000Z',
    '2026-01-01T10:20Z',
    '2026-01-01T10:20:30.123456Z',
    '2026-01-01T02:00:00+02:00',
    '2026-01-01T02:00:00-1559',
    '0001-01-01T00:00:00+14:00',
    '9999-12-31T23:59:59-14:00',
  ])('keeps the time %s as written', (raw) => {
    expect(parseBefore(raw)).toEqual({ at: raw });
  });

  it.each([
    ['a day that does not exist', '2020-02-30'],
    ['year 0', '0000-01-01'],
    ['a six-digit year', '+275760-09-13T00:00:00.000Z'],
    ['a bare number', '0'],
    ['an offset PostgreSQL refuses', '2020-01-01T00:00:00+16:00'],
    ['an offset of 23:59', '2020-01-01T00:00:00-2359'],
    ['hour 24', '2020-01-01T24:00:00Z'],
    ['a malformed time', '2020-01-01T1:2:3Z'],
    ['a NUL character', '2020-01-01\u0000'],
  ])('refuses %s with 400 naming before', (_case, raw) => {
    let err: unknown;
    try {
      parseBefore(raw);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_request', status: 400 });
    expect((err as ApiError).message).toMatch(/^before /);
  });
});
