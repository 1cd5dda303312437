import { formatKeys } from './operator-commands';

const key = (id: string, revokedAt: string | null) => ({
  id,
  gameId: 'g',
  prefix: `jk_${id.repeat(16)}`,
  createdAt: '2025-01-02T03:04:05.678Z',
  revokedAt,
  scopes: ['read' as const, 'write' as const],
  expiresAt: null,
});

describe('formatKeys', () => {
  it('prints a header and one aligned row per key, "-" for a live key', () => {
    const sut = formatKeys([key('a', null), key('b', '2025-02-03T04:05:06.789Z')]);
    expect(sut.split('\n')).toEqual([
      'ID  PREFIX               CREATED                   REVOKED',
      'a   jk_aaaaaaaaaaaaaaaa  2025-01-02T03:04:05.678Z  -',
      'b   jk_bbbbbbbbbbbbbbbb  2025-01-02T03:04:05.678Z  2025-02-03T04:05:06.789Z',
    ]);
  });

  it('says so when the game has no key', () => {
    expect(formatKeys([])).toBe('no API keys (key:mint <gameId> mints one)');
  });
});
