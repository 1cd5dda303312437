import {
  apiKeyFromHeader,
  bearerToken,
  hashSecret,
  mintApiKey,
  parseApiKey,
  secretMatches,
  secretMatchesCached,
  tokensEqual,
} from './api-key-format';

describe('parseApiKey', () => {
  it('splits a well-formed key into its prefix and secret', () => {
    expect(parseApiKey('jk_0123abcDEF.s3cr-et_X')).toEqual({ prefix: 'jk_0123abcDEF', secret: 's3cr-et_X' });
  });

  it.each([
    ['no dot', 'jk_abc123secret'],
    ['a wrong prefix', 'pk_abc.secret'],
    ['an upper-case prefix', 'JK_abc.secret'],
    ['an empty prefix body', 'jk_.secret'],
    ['an empty secret', 'jk_abc.'],
    ['an empty string', ''],
    ['a space inside', 'jk_abc.sec ret'],
    ['a leading space', ' jk_abc.secret'],
    ['a trailing space', 'jk_abc.secret '],
    ['two dots', 'jk_abc.sec.ret'],
    ['a non-base64url secret', 'jk_abc.sec+ret/='],
    ['an admin token', 'jadm_0123456789abcdef'],
    ['an admin token with a dot', 'jadm_abc.secret'],
  ])('rejects a key with %s', (_case, key) => {
    expect(parseApiKey(key)).toBeNull();
  });
});

describe('bearerToken', () => {
  it('returns the credential of a Bearer header with its case as written', () => {
    expect(bearerToken('Bearer AbC.dEf')).toBe('AbC.dEf');
  });

  it('reads the scheme name case-insensitively (RFC 7235)', () => {
    expect(bearerToken('bearer tok')).toBe('tok');
    expect(bearerToken('BEARER tok')).toBe('tok');
  });

  it('tolerates extra spaces around the credential', () => {
    expect(bearerToken('Bearer   tok  ')).toBe('tok');
  });

  it.each<[string, string | string[] | undefined]>([
    ['a missing header', undefined],
    ['an empty header', ''],
    ['a Bearer scheme without credential', 'Bearer '],
    ['the Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['a bare token without scheme', 'jk_abc.secret'],
    ['a credential containing a space', 'Bearer two words'],
    ['a repeated header', ['Bearer a', 'Bearer b']],
  ])('returns null for %s', (_case, header) => {
    expect(bearerToken(header)).toBeNull();
  });
});

describe('apiKeyFromHeader', () => {
  it('parses the API key carried as a bearer token', () => {
    expect(apiKeyFromHeader('Bearer jk_abc123.secret')).toEqual({ prefix: 'jk_abc123', secret: 'secret' });
  });

  it.each<[string, string | undefined]>([
    ['no header', undefined],
    ['a bearer token that is not an API key', 'Bearer jadm_0123456789abcdef'],
    ['an API key under another scheme', 'Basic jk_abc123.secret'],
  ])('returns null for %s', (_case, header) => {
    expect(apiKeyFromHeader(header)).toBeNull();
  });
});

describe('hashSecret and secretMatches', () => {
  it('hashes to a 32-byte SHA-256 digest', () => {
    expect(hashSecret('secret').toString('hex')).toBe(
      '2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b',
    );
  });

  it('matches the secret that was hashed', () => {
    expect(secretMatches('right', hashSecret('right'))).toBe(true);
  });

  it('does not match another secret', () => {
    expect(secretMatches('wrong', hashSecret('right'))).toBe(false);
  });

  it('does not match a stored hash of another length', () => {
    expect(secretMatches('right', hashSecret('right').subarray(0, 16))).toBe(false);
  });
});

describe('secretMatchesCached', () => {
  it('matches the right secret again and again', () => {
    const key = { secretHash: hashSecret('right-secret') };

    expect(secretMatchesCached('right-secret', key)).toBe(true);
    expect(secretMatchesCached('right-secret', key)).toBe(true);
  });

  it('refuses a wrong secret of the same length after the right one was proven', () => {
    const key = { secretHash: hashSecret('right-secret') };
    secretMatchesCached('right-secret', key);

    expect(secretMatchesCached('wrong-secret', key)).toBe(false);
    expect(secretMatchesCached('right-secre', key)).toBe(false);
  });

  it('does not carry a proven secret over to another key object', () => {
    const proven = { secretHash: hashSecret('right-secret') };
    const other = { secretHash: hashSecret('other-secret') };
    secretMatchesCached('right-secret', proven);

    expect(secretMatchesCached('right-secret', other)).toBe(false);
  });

  it('refuses everything while no secret matches', () => {
    const key = { secretHash: hashSecret('right-secret') };

    expect(secretMatchesCached('wrong-secret', key)).toBe(false);
    expect(secretMatchesCached('wrong-secret', key)).toBe(false);
  });
});

describe('mintApiKey', () => {
  it('mints a key made of its prefix and a secret', () => {
    const sut = mintApiKey();

    const parsed = parseApiKey(sut.key);
    expect(parsed).not.toBeNull();
    expect(parsed?.prefix).toBe(sut.prefix);
    expect(sut.key).toBe(`${sut.prefix}.${parsed?.secret}`);
  });

  it('uses "jk_" and 16 lowercase hex characters as the prefix', () => {
    expect(mintApiKey().prefix).toMatch(/^jk_[0-9a-f]{16}$/);
  });

  it('uses a 43-character base64url secret of 32 random bytes', () => {
    const secret = mintApiKey().key.split('.')[1];

    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
  });

  it('stores the hash of its secret', () => {
    const sut = mintApiKey();
    const secret = sut.key.split('.')[1];

    expect(secretMatches(secret, sut.secretHash)).toBe(true);
  });

  it('mints a different key each time', () => {
    const a = mintApiKey();
    const b = mintApiKey();

    expect(a.prefix).not.toBe(b.prefix);
    expect(a.key).not.toBe(b.key);
    expect(a.secretHash.equals(b.secretHash)).toBe(false);
  });
});

describe('tokensEqual', () => {
  it.each([
    ['identical tokens', 'jadm_0123456789abcdef', 'jadm_0123456789abcdef', true],
    ['two empty tokens', '', '', true],
    ['tokens differing in one character', 'jadm_0123456789abcdef', 'jadm_0123456789abcdeF', false],
    ['tokens of different lengths', 'jadm_0123456789abcdef', 'jadm_0123456789abcdef0', false],
    ['a token and the empty string', 'jadm_0123456789abcdef', '', false],
  ])('compares %s', (_case, a, b, expected) => {
    expect(tokensEqual(a, b)).toBe(expected);
  });
});
