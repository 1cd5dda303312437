import { canonicalAddress, hostRefusedClass, refusedClass, refusedLabel, type HostAddressSet, type RefusedClass } from './address-class';

/**
 * The addresses a webhook may not reach (DECISIONS §25, docs/webhooks.md "Private networks"):
 * each special-purpose block at its first and last address and one past each edge, IPv6 in every
 * spelling, the IPv6 forms that carry an IPv4 judged by that IPv4, and public addresses that must
 * pass, so an over-wide rule fails here as surely as a missing one.
 */
const NONE: HostAddressSet = new Set();
const classOf = (ip: string) => refusedClass(ip, NONE);
type Row = [string, RefusedClass | null];

describe('refusedClass: IPv4 blocks, first and last address and one past each edge', () => {
  it.each<Row>([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['1.0.0.0', null],
    ['9.255.255.255', null],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['11.0.0.0', null],
    ['100.63.255.255', null],
    ['100.64.0.0', 'shared'],
    ['100.127.255.255', 'shared'],
    ['100.128.0.0', null],
    ['126.255.255.255', null],
    ['127.0.0.0', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['128.0.0.0', null],
    ['169.253.255.255', null],
    ['169.254.0.0', 'link-local'],
    ['169.254.169.254', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['169.255.0.0', null],
    ['172.15.255.255', null],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', null],
    ['191.255.255.255', null],
    ['192.0.0.0', 'protocol'],
    ['192.0.0.9', 'protocol'],
    ['192.0.0.255', 'protocol'],
    ['192.0.1.0', null],
    ['192.0.1.255', null],
    ['192.0.2.0', 'documentation'],
    ['192.0.2.255', 'documentation'],
    ['192.0.3.0', null],
    ['192.88.98.255', null],
    ['192.88.99.0', 'reserved'],
    ['192.88.99.255', 'reserved'],
    ['192.88.100.0', null],
    ['192.167.255.255', null],
    ['192.168.0.0', 'private'],
    ['192.168.255.255', 'private'],
    ['192.169.0.0', null],
    ['198.17.255.255', null],
    ['198.18.0.0', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.20.0.0', null],
    ['198.51.99.255', null],
    ['198.51.100.0', 'documentation'],
    ['198.51.100.255', 'documentation'],
    ['198.51.101.0', null],
    ['203.0.112.255', null],
    ['203.0.113.0', 'documentation'],
    ['203.0.113.255', 'documentation'],
    ['203.0.114.0', null],
    ['223.255.255.255', null],
    ['224.0.0.0', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('%s is %s', (ip, c) => {
    expect(classOf(ip)).toBe(c);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '9.9.9.9',
    '93.184.215.14',
    // globally reachable special-purpose blocks (AS112, AMT, AS112 direct delegation)
    '192.31.196.1',
    '192.52.193.1',
    '192.175.48.1',
  ])('the public %s may be reached', (ip) => {
    expect(classOf(ip)).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// IPv6, every row in six spellings

/** Eight groups of a compressed or full hex IPv6 written without a dotted tail. */
function groupsOf(ip: string): number[] {
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':').map((x) => parseInt(x, 16)) : [];
  const t = tail ? tail.split(':').map((x) => parseInt(x, 16)) : [];
  return tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

const hex = (g: number[]) => g.map((x) => x.toString(16));

/** The longest run of two or more zero groups written as `::`. */
function compressed(g: number[]): string {
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j === i ? i + 1 : j;
  }
  const h = hex(g);
  if (best.at < 0) return h.join(':');
  return `${h.slice(0, best.at).join(':')}::${h.slice(best.at + best.len).join(':')}`;
}

function spellings(ip: string): string[] {
  const g = groupsOf(ip);
  const padded = g.map((x) => x.toString(16).padStart(4, '0')).join(':');
  const dotted = `${hex(g.slice(0, 6)).join(':')}:${g[6] >> 8}.${g[6] & 0xff}.${g[7] >> 8}.${g[7] & 0xff}`;
  return [compressed(g), hex(g).join(':'), padded, padded.toUpperCase(), `${compressed(g)}%eth0`, dotted];
}

const sixWays = (rows: Row[]): Row[] => rows.flatMap(([ip, c]) => spellings(ip).map((s): Row => [s, c]));

describe('refusedClass: IPv6 blocks, first and last address and one past each edge', () => {
  it.each<Row>(
    sixWays([
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['::2', 'unspecified'], // compatible: 0.0.0.2
      ['ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
      ['100::', 'reserved'],
      ['100::ffff:ffff:ffff:ffff', 'reserved'],
      ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
      ['2000::', null],
      ['2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
      ['2001:1::1', 'protocol'],
      ['2001:1::2', 'protocol'],
      ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', 'protocol'],
      ['2001:200::', null],
      ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', null],
      ['2001:db8::', 'documentation'],
      ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
      ['2001:db9::', null],
      ['2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
      ['2002::', 'unspecified'], // 6to4 of 0.0.0.0
      ['2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'broadcast'],
      ['2003::', null],
      ['3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
      ['3fff::', 'documentation'],
      ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
      ['3fff:1000::', null],
      ['4000::', 'reserved'],
      ['5f00::1', 'reserved'],
      ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
      ['fc00::', 'unique-local'],
      ['fd00::1', 'unique-local'],
      ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'],
      ['fe00::', 'reserved'],
      ['fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
      ['fe80::', 'link-local'],
      ['fe80::1', 'link-local'],
      ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
      ['fec0::', 'site-local'],
      ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'site-local'],
      ['ff00::', 'multicast'],
      ['ff02::1', 'multicast'],
      ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast'],
      // the NAT64 prefixes around their edges
      ['64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
      ['64:ff9b::', 'unspecified'],
      ['64:ff9b::ffff:ffff', 'broadcast'],
      ['64:ff9b::1:0:0', 'reserved'],
      ['64:ff9b:0:ffff:ffff:ffff:ffff:ffff', 'reserved'],
      ['64:ff9b:1::808:808', 'local-nat64'],
      ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'local-nat64'],
      ['64:ff9b:2::', 'reserved'],
      // just beside the mapped and translated forms
      ['::fffe:ffff:ffff', 'reserved'],
      ['::1:0:0:0', 'reserved'],
      ['::1:ffff:0:0', 'reserved'],
    ]),
  )('%s is %s', (ip, c) => {
    expect(classOf(ip)).toBe(c);
  });

  it.each(
    [
      '2606:4700:4700::1111',
      '2001:4860:4860::8888',
      '2a00:1450:4001:80b::200e',
      '2620:4f:8000::1', // AS112 direct delegation: globally reachable
      '2002:808:808::1', // 6to4 of 8.8.8.8
      '2002:101:101:1::',
      '::ffff:808:808',
      '64:ff9b::101:101',
    ].flatMap(spellings),
  )('the public %s may be reached', (ip) => {
    expect(classOf(ip)).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// IPv4 carried by IPv6

const v4hex = (ip: string) => {
  const [a, b, c, d] = ip.split('.').map(Number);
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
};
const inverted = (ip: string) => v4hex(ip.split('.').map((x) => String(255 - Number(x))).join('.'));

/** Every IPv6 form that carries `ip`: mapped, translated, compatible, NAT64, 6to4, Teredo. */
function carriers(ip: string): [string, string][] {
  const [hi, lo] = v4hex(ip);
  const [ihi, ilo] = inverted(ip);
  return [
    ['mapped', `::ffff:${ip}`],
    ['mapped, hex', `::ffff:${hi}:${lo}`],
    ['mapped, full', `0:0:0:0:0:ffff:${hi}:${lo}`],
    ['mapped, padded upper case', `0000:0000:0000:0000:0000:FFFF:${hi.padStart(4, '0').toUpperCase()}:${lo.padStart(4, '0').toUpperCase()}`],
    ['translated', `::ffff:0:${ip}`],
    ['translated, hex', `::ffff:0:${hi}:${lo}`],
    ['compatible', `::${ip}`],
    ['NAT64', `64:ff9b::${ip}`],
    ['NAT64, hex', `64:ff9b::${hi}:${lo}`],
    ['local-use NAT64', `64:ff9b:1::${ip}`],
    ['6to4', `2002:${hi}:${lo}::`],
    ['6to4 with a subnet and host', `2002:${hi}:${lo}:1:2:3:4:5`],
    ['Teredo server', `2001:0:${hi}:${lo}:8000:63bf:f7f7:f7f7`],
    ['Teredo client', `2001:0:4136:e378:8000:63bf:${ihi}:${ilo}`],
  ];
}

describe('refusedClass: an IPv4 carried by IPv6 is judged as that IPv4', () => {
  const internal: Row[] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared'],
    ['0.0.0.0', 'unspecified'],
    ['192.0.0.1', 'protocol'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ];
  it.each(internal.flatMap(([ip, c]) => carriers(ip).map(([form, v6]) => [v6, form, ip, c] as const)))('%s (%s of %s) is %s', (v6, _form, _ip, c) => {
    expect(classOf(v6)).toBe(c);
  });

  it.each<[string, RefusedClass | null]>([
    ['mapped', null],
    ['mapped, hex', null],
    ['mapped, full', null],
    ['mapped, padded upper case', null],
    ['translated', 'reserved'],
    ['translated, hex', 'reserved'],
    ['compatible', 'reserved'],
    ['NAT64', null],
    ['NAT64, hex', null],
    ['local-use NAT64', 'local-nat64'],
    ['6to4', null],
    ['6to4 with a subnet and host', null],
    ['Teredo server', 'protocol'],
    ['Teredo client', 'protocol'],
  ])('the %s form of the public 8.8.8.8 is %s', (form, c) => {
    const [, v6] = carriers('8.8.8.8').find(([f]) => f === form)!;
    expect(classOf(v6)).toBe(c);
  });

  it('the spellings the task names are refused', () => {
    expect(classOf('::ffff:7f00:1')).toBe('loopback');
    expect(classOf('::ffff:0:127.0.0.1')).toBe('loopback');
    expect(classOf('2002:7f00:1::')).toBe('loopback');
    expect(classOf('64:ff9b::10.0.0.1')).toBe('private');
  });
});

describe("refusedClass: this server's own addresses", () => {
  const mine: HostAddressSet = new Set(['93.184.215.14', '2a01:4f8:c17:1:0:0:0:2', '10.0.3.7', 'fd00:0:0:0:0:0:0:2']);

  it.each([
    '93.184.215.14',
    '::ffff:93.184.215.14',
    '::ffff:5db8:d70e',
    '64:ff9b::93.184.215.14',
    '2002:5db8:d70e::1',
    '2a01:4f8:c17:1::2',
    '2a01:04f8:0c17:0001:0000:0000:0000:0002',
    '2A01:4F8:C17:1::2',
    '2a01:4f8:c17:1::2%eth0',
    '2a01:4f8:c17:1:0:0:0.0.0.2',
  ])('%s is this server', (ip) => {
    expect(refusedClass(ip, mine)).toBe('this-host');
    expect(refusedLabel(refusedClass(ip, mine)!)).toBe('an address of this server');
  });

  it('passes with the same addresses once they are not the server’s', () => {
    for (const ip of ['93.184.215.14', '2a01:4f8:c17:1::2', '::ffff:93.184.215.14', '2002:5db8:d70e::1']) expect(classOf(ip)).toBeNull();
    expect(refusedClass('93.184.215.15', mine)).toBeNull();
    expect(refusedClass('2a01:4f8:c17:1::3', mine)).toBeNull();
  });

  it('an internal address of the server is named by its range: which one is the server’s is not told', () => {
    expect(refusedClass('10.0.3.7', mine)).toBe('private');
    expect(refusedClass('fd00::2', mine)).toBe('unique-local');
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
    expect(classOf(text)).toBeNull();
    expect(canonicalAddress(text)).toBeNull();
  });
});

describe('canonicalAddress', () => {
  it('writes each address one way, whatever its spelling', () => {
    expect(canonicalAddress('192.0.2.2')).toBe('192.0.2.2');
    for (const s of spellings('fe80::fc:ff:fe00:1')) expect(canonicalAddress(s)).toBe('fe80:0:0:0:fc:ff:fe00:1');
    expect(canonicalAddress('::ffff:127.0.0.1')).toBe('0:0:0:0:0:ffff:7f00:1');
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
    ['[fec0::1]', 'site-local'],
    ['169.254.169.254', 'link-local'],
    ['198.18.0.1', 'benchmarking'],
    ['[2001:db8::1]', 'documentation'],
    ['example.com', null],
    ['localhost.example.com', null],
    ['127.0.0.1.nip.io', null],
    ['[2606:4700:4700::1111]', null],
    ['::1', null],
  ])('%s is %s', (host, c) => {
    expect(hostRefusedClass(host, NONE)).toBe(c);
  });

  it("names the server's own address", () => {
    expect(hostRefusedClass('93.184.215.14', new Set(['93.184.215.14']))).toBe('this-host');
    expect(hostRefusedClass('[2a01:4f8::2]', new Set(['2a01:4f8:0:0:0:0:0:2']))).toBe('this-host');
  });

  it('agrees with the URL parser on every spelling it normalises', () => {
    for (const raw of ['http://[::ffff:127.0.0.1]/', 'http://[0:0:0:0:0:ffff:7f00:1]/', 'http://0x7f.1/', 'http://2130706433/', 'http://[::1]:8080/', 'http://[::ffff:0:127.0.0.1]/']) {
      expect(hostRefusedClass(new URL(raw).hostname, NONE)).toBe('loopback');
    }
  });
});

describe('refusedLabel', () => {
  it('names each class in words, as refusals say it', () => {
    const labels: Record<RefusedClass, string> = {
      unspecified: 'an unspecified address',
      loopback: 'a loopback address',
      private: 'a private-network address',
      'link-local': 'a link-local address',
      shared: 'a carrier-grade NAT (shared) address',
      'unique-local': 'a unique local address',
      'site-local': 'a site-local address',
      'local-nat64': 'a local-use NAT64 address',
      documentation: 'a documentation address',
      benchmarking: 'a benchmarking address',
      protocol: 'an IETF protocol-assignment address',
      multicast: 'a multicast address',
      broadcast: 'the broadcast address',
      reserved: 'a reserved address',
      'this-host': 'an address of this server',
    };
    for (const [c, label] of Object.entries(labels)) expect(refusedLabel(c as RefusedClass)).toBe(label);
  });
});
