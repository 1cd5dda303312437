import { networkInterfaces } from 'node:os';
import type { HostAddressSet } from './address-class';
import { HostAddresses } from './host-addresses';
import { MAX_URL_LENGTH, webhookUrlProblem } from './url-policy';

/**
 * SPEC §4 POST /v1/webhooks, §8, DECISIONS §25: http/https only, ≤ 2000 chars, and unless private
 * hosts are allowed no host that is an internal, special-purpose or this server's own address; the
 * check reads the URL (names are never resolved); `localhost` and `*.localhost` are loopback.
 */
const NONE: HostAddressSet = new Set();
const rejected = (url: string) => webhookUrlProblem(url, false, NONE);

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
    expect(rejected(url)).toMatch(/^url points at an? (private-network|loopback|link-local|unspecified|unique local|carrier-grade NAT \(shared\)) address, which webhooks may not reach$/);
  });

  it.each([
    // each special-purpose block, at its edges, as a full URL
    ['http://192.0.0.0/', 'an IETF protocol-assignment address'],
    ['http://192.0.0.255/', 'an IETF protocol-assignment address'],
    ['http://192.0.2.0/', 'a documentation address'],
    ['http://192.0.2.255/', 'a documentation address'],
    ['http://192.88.99.1/', 'a reserved address'],
    ['http://198.18.0.0/', 'a benchmarking address'],
    ['http://198.19.255.255:8080/x', 'a benchmarking address'],
    ['http://198.51.100.0/', 'a documentation address'],
    ['http://198.51.100.255/', 'a documentation address'],
    ['http://203.0.113.0/', 'a documentation address'],
    ['http://203.0.113.255/', 'a documentation address'],
    ['http://224.0.0.1/', 'a multicast address'],
    ['http://239.255.255.255/', 'a multicast address'],
    ['http://240.0.0.0/', 'a reserved address'],
    ['http://255.255.255.254/', 'a reserved address'],
    ['http://255.255.255.255/', 'the broadcast address'],
    ['http://[100::]/', 'a reserved address'],
    ['http://[2001:1::1]/', 'an IETF protocol-assignment address'],
    ['http://[2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff]/', 'an IETF protocol-assignment address'],
    ['http://[2001:db8::]/', 'a documentation address'],
    ['http://[2001:db8:ffff:ffff:ffff:ffff:ffff:ffff]/', 'a documentation address'],
    ['http://[3fff::1]/', 'a documentation address'],
    ['http://[fec0::1]/', 'a site-local address'],
    ['http://[FEFF::1]:8443/', 'a site-local address'],
    ['http://[ff02::1]/', 'a multicast address'],
    ['http://[4000::1]/', 'a reserved address'],
    ['http://[64:ff9b:1:1::1]/', 'a local-use NAT64 address'],
    // IPv4 carried by IPv6, in the spellings the parser keeps or rewrites
    ['http://[::ffff:7f00:1]/', 'a loopback address'],
    ['http://[::ffff:0:127.0.0.1]/', 'a loopback address'],
    ['http://[::ffff:0:a00:1]/', 'a private-network address'],
    ['http://[::127.0.0.1]/', 'a loopback address'],
    ['http://[0000:0000:0000:0000:0000:FFFF:A9FE:A9FE]/', 'a link-local address'],
    ['http://[2002:7f00:1::]/', 'a loopback address'],
    ['http://[2002:c0a8:101::1]/', 'a private-network address'],
    ['http://[64:ff9b::10.0.0.1]/', 'a private-network address'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'a link-local address'],
    ['http://[2001:0:a00:1:8000:63bf:f7f7:f7f7]/', 'a private-network address'],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'a loopback address'],
    ['http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/', 'an IETF protocol-assignment address'],
    // IPv4 shorthand, which the parser writes as dotted decimal before the check reads it
    ['http://2130706433/', 'a loopback address'],
    ['http://0x7f.1/', 'a loopback address'],
    ['http://0x7f000001/', 'a loopback address'],
    ['http://0177.0.0.1/', 'a loopback address'],
    ['http://127.1/', 'a loopback address'],
    ['http://127.0.0.1./', 'a loopback address'],
    ['http://0/', 'an unspecified address'],
    ['http://167772161/', 'a private-network address'],
    ['http://0xa9fea9fe/', 'a link-local address'],
    ['http://3325256705/', 'a documentation address'],
    ['http://198.18.1/', 'a benchmarking address'],
  ])('rejects %s as %s', (url, label) => {
    expect(rejected(url)).toBe(`url points at ${label}, which webhooks may not reach`);
  });

  it("rejects the server's own address, written in any form, as this server's", () => {
    const mine: HostAddressSet = new Set(['93.184.215.14', '2a01:4f8:c17:1:0:0:0:2']);
    for (const url of ['http://93.184.215.14/', 'https://93.184.215.14:8443/x', 'http://1572394766/', 'http://[::ffff:93.184.215.14]/', 'http://[2002:5db8:d70e::]/', 'http://[2a01:4f8:c17:1::2]/', 'http://[2A01:04F8:0C17:0001::0002]/']) {
      expect([url, webhookUrlProblem(url, false, mine)]).toEqual([url, 'url points at an address of this server, which webhooks may not reach']);
      expect(webhookUrlProblem(url, true, mine)).toBeNull();
      expect(rejected(url)).toBeNull();
    }
  });

  it("rejects every address of this machine's interfaces, read from the machine", () => {
    const mine = new HostAddresses().current();
    for (const { address, family } of Object.values(networkInterfaces()).flatMap((l) => l ?? [])) {
      const url = family === 'IPv6' ? `http://[${address}]:8787/hook` : `http://${address}:8787/hook`;
      expect([url, webhookUrlProblem(url, false, mine)]).toEqual([url, expect.stringMatching(/^url points at /)]);
    }
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
    'http://[2606:4700:4700::1111]/',
    'http://[2001:4860:4860::8888]/',
    'https://[2001:4860:4860:0000:0000:0000:0000:8888]:443/x',
    'http://[2001:db7:ffff:ffff:ffff:ffff:ffff:ffff]/',
    'http://[2001:db9::]/',
    'http://[2001:200::1]/',
    'http://[2002:808:808::1]/',
    'http://[::ffff:8.8.8.8]/',
    'http://[64:ff9b::8.8.8.8]/',
    'http://134744072/',
    'http://192.0.1.255/',
    'http://192.0.3.0/',
    'http://198.17.255.255/',
    'http://198.20.0.0/',
    'http://198.51.99.255/',
    'http://198.51.101.0/',
    'http://203.0.112.255/',
    'http://203.0.114.0/',
    'http://223.255.255.255/',
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
    'http://198.18.0.1/',
    'http://203.0.113.7/',
    'http://[fec0::1]/',
    'http://[2002:7f00:1::]/',
    'http://[64:ff9b::10.0.0.1]/',
    'http://2130706433/',
    'https://example.com/hook',
  ])('accepts %s', (url) => {
    expect(webhookUrlProblem(url, true, NONE)).toBeNull();
  });

  it('still refuses other schemes and over-long urls', () => {
    expect(webhookUrlProblem('ftp://127.0.0.1/x', true, NONE)).not.toBeNull();
    expect(webhookUrlProblem(`http://127.0.0.1/${'a'.repeat(2000)}`, true, NONE)).not.toBeNull();
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
    expect(webhookUrlProblem(url, true, NONE)).toMatch(/http/);
  });

  it.each(['not a url', '', 'example.com/hook', '//example.com/hook', '/relative/path', 'http://', 'https://exa mple.com/'])(
    'rejects the non-URL %j',
    (url) => {
      expect(rejected(url)).not.toBeNull();
      expect(webhookUrlProblem(url, true, NONE)).not.toBeNull();
    },
  );

  it('accepts http and https, in any letter case', () => {
    expect(rejected('http://example.com/plain')).toBeNull();
    expect(rejected('https://example.com/tls')).toBeNull();
    expect(rejected('HTTPS://EXAMPLE.COM/Upper')).toBeNull();
  });

  it('accepts credentials in the URL, and refuses those delivery could not decode', () => {
    for (const url of ['https://user:pw@example.com/hook', 'https://user@example.com/', 'https://us%40er:p%3Aw@example.com/', 'https://üser:pä55@example.com/']) {
      expect(rejected(url)).toBeNull();
    }
    for (const url of ['https://%ff:pw@example.com/', 'https://user:%e0%a4@example.com/', 'https://user:%C3@example.com/']) {
      expect(rejected(url)).toBe('url user name and password must be valid percent-encoded UTF-8');
      expect(webhookUrlProblem(url, true, NONE)).toBe('url user name and password must be valid percent-encoded UTF-8');
    }
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
    for (const url of ['ftp://example.com/', 'nope', 'http://10.0.0.1/', 'http://[2002:7f00:1::]/', 'https://%ff@example.com/', `https://example.com/${'a'.repeat(1981)}`]) {
      expect(rejected(url)).toMatch(/^url /);
    }
  });
});
