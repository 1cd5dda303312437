import { formatKeys, formatMinted } from './operator-commands';

const key = (id: string, revokedAt: string | null, scopes: Array<'read' | 'write'> = ['read', 'write'], expiresAt: string | null = null) => ({
  id,
  gameId: 'g',
  prefix: `jk_${id.repeat(16)}`,
  createdAt: '2025-01-02T03:04:05.678Z',
  revokedAt,
  scopes,
  expiresAt,
});

describe('formatKeys', () => {
  it('prints a header and one aligned row per key: scopes, "never" for no expiry, "-" for a live key', () => {
    const sut = formatKeys([key('a', null), key('b', '2025-02-03T04:05:06.789Z', ['read'], '2025-03-04T05:06:07.890Z')]);
    expect(sut.split('\n')).toEqual([
      'ID  PREFIX               SCOPES      CREATED                   EXPIRES                   REVOKED',
      'a   jk_aaaaaaaaaaaaaaaa  read,write  2025-01-02T03:04:05.678Z  never                     -',
      'b   jk_bbbbbbbbbbbbbbbb  read        2025-01-02T03:04:05.678Z  2025-03-04T05:06:07.890Z  2025-02-03T04:05:06.789Z',
    ]);
  });

  it('says so when the game has no key', () => {
    expect(formatKeys([])).toBe('no API keys (key:mint <gameId> mints one)');
  });
});

describe('formatMinted', () => {
  it('prints the key, then its id, scopes and expiry', () => {
    expect(formatMinted({ ...key('c', null, ['read'], '2025-03-04T05:06:07.890Z'), key: 'jk_cccccccccccccccc.secret' }).split('\n')).toEqual([
      'API key jk_cccccccccccccccc.secret',
      'id       c',
      'scopes   read',
      'expires  2025-03-04T05:06:07.890Z',
      '(the key is shown only now)',
    ]);
  });
});
