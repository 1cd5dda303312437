import { grantExpiry, MAX_GRANT_MS } from './grant-expiry';

/** EXTENSIONS X8: `expiresIn` (s, m, h, d; at most 365d) or `expiresAt` (future), not both. */
describe('grantExpiry', () => {
  const now = Date.parse('2026-01-01T00:00:00.000Z');

  it('is permanent without either field, or with nulls', () => {
    expect(grantExpiry({}, now)).toBeNull();
    expect(grantExpiry({ expiresIn: null, expiresAt: null }, now)).toBeNull();
  });

  it.each([
    ['30s', 30_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
    ['365d', MAX_GRANT_MS],
  ])('expiresIn %s is now plus that', (raw, ms) => {
    expect(grantExpiry({ expiresIn: raw }, now)?.getTime()).toBe(now + ms);
  });

  it('takes a future expiresAt as written', () => {
    expect(grantExpiry({ expiresAt: '2026-02-01T00:00:00Z' }, now)?.toISOString()).toBe('2026-02-01T00:00:00.000Z');
  });

  it.each([
    [{ expiresIn: '1h', expiresAt: '2026-02-01T00:00:00Z' }, 'not both'],
    [{ expiresIn: '366d' }, 'at most 365d'],
    [{ expiresIn: '0d' }, 'positive integer'],
    [{ expiresIn: '1w' }, 'positive integer'],
    [{ expiresAt: '2026-01-01T00:00:00Z' }, 'in the future'],
    [{ expiresAt: '2027-01-02T00:00:00Z' }, 'at most 365 days'],
    [{ expiresAt: 'soon' }, 'ISO 8601'],
  ])('refuses %j', (input, said) => {
    expect(() => grantExpiry(input, now)).toThrow(said);
  });
});
