import { isPrivateHost, MAX_URL_LENGTH, webhookUrlProblem } from './url-policy';

/**
 * SPEC §4 POST /v1/webhooks, §8, DECISIONS §25: http/https only, ≤ 2000 chars, and unless private
 * hosts are allowed no loopback, link-local, RFC 1918, RFC 6598, IPv6 ULA or 0.0.0.0 host; the
 * check is lexical (names are never resolved); `localhost` and `*.localhost` are loopback.
 */
const rejected = (url: string) => webhookUrlProblem(url, false);

describe('webhookUrlProblem: private hosts (private hosts not allowed)', () => {
  it.each([
    // loopback
    'http://127.0.0.1/hook',
    'http://127.255.255.254/',
    'http://127.1.2.3:8080/x',
    'http://localhost/hook',
    'http://LOCALHOST:3000/',
    'http://localhost./',
    'http://sub.localhost/',
    'http://a.b.localhost:9/',
    'http://[::1]/',
    'http://[::1]:8080/hook',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:10.1.2.3]/',
    'http://[::ffff:192.168.0.1]/',
    // 0.0.0.0 and the unspecified IPv6 address
    'http://0.0.0.0/',
    'http://0.0.0.0:8787/',
    'http://[::]/',
    // RFC 1918
    'http://10.0.0.0/',
    'http://10.0.0.1/',
    'http://10.255.255.255/',
    'http://172.16.0.0/',
    'http://172.16.0.1/',
    'http://172.20.10.10/',
    'http://172.31.255.255/',
    'http://192.168.0.0/',
    'http://192.168.1.1/',
    'http://192.168.255.255/',
    // link-local
    'http://169.254.0.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://[fe80::1]/',
    'http://[fe80::1234:5678:9abc:def0]/',
    'http://[febf::1]/',
    // RFC 6598 shared address space 100.64.0.0/10
    'http://100.64.0.0/',
    'http://100.64.0.1/',
    'http://100.100.100.100/',
    'http://100.127.255.255/',
    // IPv6 ULA fc00::/7
    'http://[fd00::1]/',
    'http://[fc00::1]/',
    'http://[fdff:ffff::1]/',
    'https://[FD12:3456:789a::1]:443/',
  ])('rejects %s', (url) => {
    expect(rejected(url)).toMatch(/private|loopback|link-local/);
  });

  it.each([
    // the parser's normal form of other IPv4 spellings is checked, so they are caught too
    'http://2130706433/',
    'http://0x7f.0.0.1/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://0/',
    'http://0xa.0.0.1/',
  ])('rejects the IPv4 spelling %s once normalised', (url) => {
    expect(rejected(url)).not.toBeNull();
  });

  it.each([
    // just outside each private range
    'http://172.15.255.255/',
    'http://172.32.0.0/',
    'http://172.15.0.1/',
    'http://172.32.0.1/',
    'http://100.63.255.255/',
    'http://100.128.0.0/',
    'http://100.63.0.1/',
    'http://100.128.0.1/',
    'http://9.255.255.255/',
    'http://11.0.0.0/',
    'http://126.255.255.255/',
    'http://128.0.0.1/',
    'http://169.253.255.255/',
    'http://169.255.0.1/',
    'http://192.167.255.255/',
    'http://192.169.0.0/',
    'http://1.1.1.1/',
    'http://8.8.8.8/',
    'http://[2001:db8::1]/',
    'http://[2606:4700:4700::1111]/',
    'http://[fbff::1]/',
    'http://[fec0::1]/',
    'http://[::ffff:8.8.8.8]/',
    // public names; the check is lexical, so a name is never resolved
    'https://example.com/hook',
    'https://hooks.slack.com/services/T000/B000/XXXX',
    'https://discord.com/api/webhooks/1/abc',
    'http://localhost.example.com/',
    'http://mylocalhost/',
    'http://127.0.0.1.nip.io/',
    'https://studio.example.com:8443/a/b?c=d#e',
  ])('accepts the public host %s', (url) => {
    expect(rejected(url)).toBeNull();
  });

  it('isPrivateHost takes the hostname as the URL parser normalises it', () => {
    expect(isPrivateHost(new URL('http://[::ffff:127.0.0.1]/').hostname)).toBe(true);
    expect(isPrivateHost(new URL('http://SUB.LocalHost/').hostname)).toBe(true);
    expect(isPrivateHost('example.com')).toBe(false);
    expect(isPrivateHost('172.16.5.4')).toBe(true);
    expect(isPrivateHost('172.32.5.4')).toBe(false);
  });
});

describe('webhookUrlProblem: private hosts allowed', () => {
  it.each([
    'http://127.0.0.1:4000/hook',
    'http://localhost/',
    'http://sub.localhost/',
    'http://[::1]/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0.0.0.0/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://169.254.1.1/',
    'http://100.64.0.1/',
    'https://example.com/hook',
  ])('accepts %s', (url) => {
    expect(webhookUrlProblem(url, true)).toBeNull();
  });

  it('still refuses other schemes and over-long urls', () => {
    expect(webhookUrlProblem('ftp://127.0.0.1/x', true)).not.toBeNull();
    expect(webhookUrlProblem(`http://127.0.0.1/${'a'.repeat(2000)}`, true)).not.toBeNull();
  });
});

describe('webhookUrlProblem: scheme and shape', () => {
  it.each([
    'ftp://example.com/hook',
    'mailto:ops@example.com',
    'ws://example.com/socket',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/plain,hello',
    'gopher://example.com/x',
  ])('rejects the scheme of %s', (url) => {
    expect(rejected(url)).toMatch(/http/);
    expect(webhookUrlProblem(url, true)).toMatch(/http/);
  });

  it.each(['not a url', '', 'example.com/hook', '//example.com/hook', '/relative/path', 'http://', 'https://exa mple.com/'])(
    'rejects the non-URL %j',
    (url) => {
      expect(rejected(url)).not.toBeNull();
      expect(webhookUrlProblem(url, true)).not.toBeNull();
    },
  );

  it('accepts http and https, in any letter case', () => {
    expect(rejected('http://example.com/plain')).toBeNull();
    expect(rejected('https://example.com/tls')).toBeNull();
    expect(rejected('HTTPS://EXAMPLE.COM/Upper')).toBeNull();
  });

  it('accepts 2000 characters and refuses 2001', () => {
    expect(MAX_URL_LENGTH).toBe(2000);
    const at = `https://example.com/${'a'.repeat(1980)}`;
    const over = `https://example.com/${'a'.repeat(1981)}`;
    expect(at).toHaveLength(2000);
    expect(over).toHaveLength(2001);
    expect(rejected(at)).toBeNull();
    expect(rejected(over)).toMatch(/2000/);
  });

  it('names the url field in every reason', () => {
    for (const url of ['ftp://example.com/', 'nope', 'http://10.0.0.1/', `https://example.com/${'a'.repeat(1981)}`]) {
      expect(rejected(url)).toMatch(/^url /);
    }
  });
});
