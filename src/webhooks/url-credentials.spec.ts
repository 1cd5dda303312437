import { maskUrlCredentials } from './url-credentials';

/** A webhook URL's userinfo is never shown: each present part becomes `***`, the rest stays as written. */
describe('maskUrlCredentials', () => {
  it.each([
    ['https://user:pw@hooks.example.com/x', 'https://***:***@hooks.example.com/x'],
    ['https://user@hooks.example.com/x', 'https://***@hooks.example.com/x'],
    ['https://:pw@hooks.example.com/x', 'https://:***@hooks.example.com/x'],
    ['https://user:@hooks.example.com/x', 'https://***@hooks.example.com/x'],
    ['http://u:p@127.0.0.1:8080/hook', 'http://***:***@127.0.0.1:8080/hook'],
    ['http://u:p@[::1]:8080/hook', 'http://***:***@[::1]:8080/hook'],
    ['HTTPS://User:Pw@Hooks.Example.com/A?b=C#D', 'HTTPS://***:***@Hooks.Example.com/A?b=C#D'],
    // the last @ of the authority ends the userinfo; an @ in the path or query is not userinfo
    ['https://us@er:p@ss@hooks.example.com/x', 'https://***:***@hooks.example.com/x'],
    ['https://u:p@hooks.example.com/a@b?c=d@e#f@g', 'https://***:***@hooks.example.com/a@b?c=d@e#f@g'],
    ['https://u%40x:p%3Aw%2F@hooks.example.com/', 'https://***:***@hooks.example.com/'],
    ['https://u:p@hooks.example.com', 'https://***:***@hooks.example.com'],
    // path, query and fragment exactly as written, not as the parser would re-encode them
    ['https://u:p@hooks.example.com/a b/ü?q=x y&r="1"#frag ment', 'https://***:***@hooks.example.com/a b/ü?q=x y&r="1"#frag ment'],
    // spellings the parser accepts: no slashes, backslashes
    ['http:u:p@hooks.example.com/x', 'http:***:***@hooks.example.com/x'],
    ['https:\\\\u:p@hooks.example.com/x', 'https:\\\\***:***@hooks.example.com/x'],
  ])('%s shows as %s', (raw, shown) => {
    expect(maskUrlCredentials(raw)).toBe(shown);
  });

  it.each([
    'https://hooks.example.com/x?token=abc#y',
    'https://hooks.example.com/user:pw@x',
    'https://@hooks.example.com/x',
    'https://:@hooks.example.com/x',
    'https://discord.com/api/webhooks/1/abc',
  ])('%s, with no credentials, is shown as written', (raw) => {
    expect(maskUrlCredentials(raw)).toBe(raw);
  });

  it('falls back to the parser’s spelling, credentials masked, when the text cannot be cut as written', () => {
    // A tab inside the scheme is dropped by the parser; the cut does not follow it.
    const shown = maskUrlCredentials('ht\ttps://user:s3cret@hooks.example.com/x');
    expect(shown).toBe('https://***:***@hooks.example.com/x');
  });

  it('never shows the credentials, whatever the spelling', () => {
    for (const raw of [
      'https://user:s3cret@hooks.example.com/x',
      ' https://user:s3cret@hooks.example.com/x',
      'https://us\ter:s3c\nret@hooks.example.com/x',
      'ht\ttps://user:s3cret@hooks.example.com/x',
      'https:///user:s3cret@hooks.example.com/x',
      'not a url user:s3cret@x',
    ]) {
      const shown = maskUrlCredentials(raw);
      expect([raw, shown.includes('s3cret') || shown.includes('s3c\nret') || shown.includes('user')]).toEqual([raw, false]);
    }
  });

  it('what it shows parses to the same host, path, query and fragment', () => {
    const raw = 'https://user:pw@hooks.example.com:8443/p/q?x=1#f';
    const a = new URL(raw);
    const b = new URL(maskUrlCredentials(raw));
    expect([b.username, b.password]).toEqual(['***', '***']);
    expect([b.host, b.pathname, b.search, b.hash]).toEqual([a.host, a.pathname, a.search, a.hash]);
  });
});
