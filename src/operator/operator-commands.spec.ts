import { formatKeys, formatMinted } from './operator-commands';

const key = (
  id: string,
  revokedAt: string | null,
  scopes: Array<'read' | 'write'> = ['read', 'write'],
  expiresAt: string | null = null,
  name: string | null = null,
  lastUsedAt: string | null = null,
) => ({
  id,
  gameId: 'g',
  prefix: `jk_${id.repeat(16)}`,
  createdAt: '2025-01-02T03:04:05.678Z',
  revokedAt,
  scopes,
  expiresAt,
  name,
  lastUsedAt,
});

describe('formatKeys', () => {
  it('prints a header and one aligned row per key: name and last use ("-" for none), scopes, "never" for no expiry, "-" for a live key', () => {
    const sut = formatKeys([
      key('a', null),
      key('b', '2025-02-03T04:05:06.789Z', ['read'], '2025-03-04T05:06:07.890Z', 'nightly export', '2025-01-31T23:59:00.000Z'),
    ]);
    expect(sut.split('\n')).toEqual([
      'ID  PREFIX               NAME            SCOPES      CREATED                   LAST USED                 EXPIRES                   REVOKED',
      'a   jk_aaaaaaaaaaaaaaaa  -               read,write  2025-01-02T03:04:05.678Z  -                         never                     -',
      'b   jk_bbbbbbbbbbbbbbbb  nightly export  read        2025-01-02T03:04:05.678Z  2025-01-31T23:59:00.000Z  2025-03-04T05:06:07.890Z  2025-02-03T04:05:06.789Z',
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

  it('prints the name after the id when the key has one', () => {
    expect(formatMinted({ ...key('d', null, ['read', 'write'], null, 'ci deploy'), key: 'jk_dddddddddddddddd.secret' }).split('\n')).toEqual([
      'API key jk_dddddddddddddddd.secret',
      'id       d',
      'name     ci deploy',
      'scopes   read,write',
      'expires  never',
      '(the key is shown only now)',
    ]);
  });
});
