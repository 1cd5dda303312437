import { secretMatches } from './api-key-format';
import { mintOperatorToken, parseOperatorToken } from './operator-token';

describe('operator tokens', () => {
  it('mints a token that parses back to its prefix and a secret matching the stored hash', () => {
    const minted = mintOperatorToken();
    const parsed = parseOperatorToken(minted.token);
    expect(minted.token).toMatch(/^jop_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/);
    expect(parsed?.prefix).toBe(minted.prefix);
    expect(secretMatches(parsed!.secret, minted.secretHash)).toBe(true);
    expect(mintOperatorToken().token).not.toBe(minted.token);
  });

  it.each(['', 'jop_', 'jadm_0123456789abcdef', 'jk_0123456789abcdef.x', `jop_0123456789abcdef.${'a'.repeat(42)}`, `jop_0123456789ABCDEF.${'a'.repeat(43)}`])(
    'refuses %j',
    (token) => {
      expect(parseOperatorToken(token)).toBeNull();
    },
  );
});
