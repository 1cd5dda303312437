import { hostRefusedClass, refusedClass, refusedLabel, type RefusedClass } from './address-class';

/**
 * The addresses a webhook may not reach (SPEC §4 POST /v1/webhooks, DECISIONS §25): every range
 * at both ends and just outside, IPv6 in its spellings, and the IPv6 forms that carry an IPv4.
 */
describe('refusedClass: IPv4', () => {
  it.each<[string, RefusedClass]>([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['127.0.0.0', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['10.0.0.0', 'private'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.0', 'private'],
    ['172.20.10.10', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.0', 'private'],
    ['192.168.1.1', 'private'],
    ['192.168.255.255', 'private'],
    ['169.254.0.0', 'link-local'],
    ['169.254.169.254', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['100.64.0.0', 'shared'],
    ['100.100.100.100', 'shared'],
    ['100.127.255.255', 'shared'],
  ])('%s is %s', (ip, c) => {
    expect(refusedClass(ip)).toBe(c);
  });

  it.each([
    '1.0.0.0',
    '1.1.1.1',
    '8.8.8.8',
    '9.255.255.255',
    '11.0.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '203.0.113.7',
    '255.255.255.255',
  ])('%s may be reached', (ip) => {
    expect(refusedClass(ip)).toBeNull();
  });
});

describe('refusedClass: IPv6', () => {
  it.each<[string, RefusedClass]>([
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['0000:0000:0000:0000:0000:0000:0000:0000', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback'],
    ['fe80::', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['FE80::ABCD', 'link-local'],
    ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
    ['fc00::', 'unique-local'],
    ['fc00::1', 'unique-local'],
    ['fd00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'],
    // IPv4-mapped, in its dotted and hexadecimal spellings
    ['::ffff:127.0.0.1', 'loopback'],
    ['::FFFF:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:a01:203', 'private'],
    ['::ffff:172.16.0.1', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:100.64.0.1', 'shared'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:0:0', 'unspecified'],
    // the deprecated IPv4-compatible form, and the NAT64 well-known prefix
    ['::127.0.0.1', 'loopback'],
    ['::a00:1', 'private'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::192.168.1.1', 'private'],
  ])('%s is %s', (ip, c) => {
    expect(refusedClass(ip)).toBe(c);
  });

  it.each([
    '2001:db8::1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    'fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    'fe00::1',
    'fec0::1',
    'ff02::1',
    '::2:0:0',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '::8.8.8.8',
    '64:ff9b::8.8.8.8',
    '64:ff9b:1::a00:1',
    '1::ffff:127.0.0.1',
    '::fffe:7f00:1',
  ])('%s may be reached', (ip) => {
    expect(refusedClass(ip)).toBeNull();
  });
});

describe('refusedClass: text that is no address', () => {
  it.each([
    '',
    'localhost',
    'example.com',
    '127.0.0',
    '127.0.0.1.5',
    '127.0.0.256',
    '127.0.0.-1',
    '127.0.0.1 ',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1::2::3',
    ':::1',
    '12345::1',
    'g::1',
    '::1%',
    '[::1]',
    '127.0.0.1::',
    '::ffff:127.0.0.1:1',
    '1:2:3:4:5:6:7:127.0.0.1',
  ])('%j is not classified', (text) => {
    expect(refusedClass(text)).toBeNull();
  });
});

describe('hostRefusedClass: a URL hostname as the parser normalised it', () => {
  it.each<[string, RefusedClass | null]>([
    ['localhost', 'loopback'],
    ['LOCALHOST', 'loopback'],
    ['localhost.', 'loopback'],
    ['a.b.localhost', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['[::1]', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['[fd00::1]', 'unique-local'],
    ['169.254.169.254', 'link-local'],
    ['example.com', null],
    ['localhost.example.com', null],
    ['127.0.0.1.nip.io', null],
    ['[2001:db8::1]', null],
    ['::1', null],
  ])('%s is %s', (host, c) => {
    expect(hostRefusedClass(host)).toBe(c);
  });

  it('agrees with the URL parser on every spelling it normalises', () => {
    for (const raw of ['http://[::ffff:127.0.0.1]/', 'http://[0:0:0:0:0:ffff:7f00:1]/', 'http://0x7f.1/', 'http://2130706433/', 'http://[::1]:8080/']) {
      expect(hostRefusedClass(new URL(raw).hostname)).toBe('loopback');
    }
  });
});

describe('refusedLabel', () => {
  it('names each class as the delivery log says it', () => {
    expect(refusedLabel('loopback')).toBe('a loopback address');
    expect(refusedLabel('private')).toBe('a private-network address');
    expect(refusedLabel('link-local')).toBe('a link-local address');
    expect(refusedLabel('shared')).toBe('a carrier-grade NAT (shared) address');
    expect(refusedLabel('unique-local')).toBe('a unique local address');
    expect(refusedLabel('unspecified')).toBe('an unspecified address');
  });
});
