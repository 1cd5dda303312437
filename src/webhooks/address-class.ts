/**
 * The addresses a webhook may not reach unless private hosts are allowed (SPEC §4 POST
 * /v1/webhooks, DECISIONS §25): every block of the IANA IPv4 and IPv6 special-purpose registries
 * that is not globally reachable unicast, multicast and the reserved IPv4 space, every IPv6
 * address outside global unicast (2000::/3), the IPv4 address an IPv6 form carries (mapped,
 * translated, compatible, NAT64, 6to4, Teredo) judged as that IPv4, and the addresses of this
 * server's own interfaces. One classification for both checks: of a URL's host at registration,
 * and of every address a host name resolves to at delivery.
 */
export type RefusedClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'unique-local'
  | 'site-local'
  | 'local-nat64'
  | 'documentation'
  | 'benchmarking'
  | 'protocol'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'this-host';

const LABELS: Record<RefusedClass, string> = {
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

/** "a loopback address", as error messages put it. */
export function refusedLabel(c: RefusedClass): string {
  return LABELS[c];
}

/** The addresses of this server's interfaces, each as canonicalAddress writes it (host-addresses.ts). */
export type HostAddressSet = ReadonlySet<string>;

type Ipv4 = number; // unsigned 32-bit
type Ipv6 = readonly number[]; // eight 16-bit groups

// First match wins: the broadcast address comes before the reserved block holding it.
const IPV4_BLOCKS = blocks4([
  ['0.0.0.0/8', 'unspecified'], // "this network"
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'], // cloud metadata (169.254.169.254) included
  ['172.16.0.0/12', 'private'],
  // Whole: its two globally reachable anycast services (192.0.0.9, .10) are not webhook receivers.
  ['192.0.0.0/24', 'protocol'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'], // the deprecated 6to4 relay anycast (RFC 7526)
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

// The IPv6 forms that carry an IPv4 address are read before these (embeddedForm).
const IPV6_BLOCKS = blocks6([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['100::/64', 'reserved'], // discard-only
  ['2001::/23', 'protocol'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'], // deprecated, still routed inside some networks
  ['ff00::/8', 'multicast'],
]);

/**
 * The class of an IPv4 or IPv6 address (a zone, `%eth0`, is ignored) a webhook may not reach;
 * null for an address it may reach, and for text that is no address.
 */
export function refusedClass(ip: string, host: HostAddressSet): RefusedClass | null {
  const v4 = parseIpv4(ip);
  if (v4 !== null) return ipv4Refusal(v4, host);
  const v6 = parseIpv6(ip);
  return v6 ? ipv6Refusal(v6, host) : null;
}

/**
 * The class of a URL's hostname as the WHATWG parser normalised it (IPv4 in dotted decimal, IPv6
 * in brackets); `localhost` and `*.localhost` are loopback (RFC 6761). Other names are not resolved.
 */
export function hostRefusedClass(hostname: string, host: HostAddressSet): RefusedClass | null {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback';
  if (name.startsWith('[') && name.endsWith(']')) {
    const v6 = parseIpv6(name.slice(1, -1));
    return v6 ? ipv6Refusal(v6, host) : null;
  }
  const v4 = parseIpv4(name);
  return v4 !== null ? ipv4Refusal(v4, host) : null;
}

/** One spelling per address (dotted decimal; lower-case hex groups, uncompressed, no zone), so sets of addresses compare; null for text that is no address. */
export function canonicalAddress(ip: string): string | null {
  const v4 = parseIpv4(ip);
  if (v4 !== null) return v4Text(v4);
  const v6 = parseIpv6(ip);
  return v6 ? v6Text(v6) : null;
}

// A range class comes first, so a refusal never tells which internal address is this server's;
// only an otherwise public address is named as this server's.
function ipv4Refusal(a: Ipv4, host: HostAddressSet): RefusedClass | null {
  return ipv4Class(a) ?? (host.has(v4Text(a)) ? 'this-host' : null);
}

function ipv6Refusal(g: Ipv6, host: HostAddressSet): RefusedClass | null {
  const form = embeddedForm(g);
  const cls = form ? (form.ipv4.map(ipv4Class).find((c) => c !== null) ?? form.otherwise) : ipv6Class(g);
  if (cls) return cls;
  const mine = host.has(v6Text(g)) || (form?.ipv4.some((a) => host.has(v4Text(a))) ?? false);
  return mine ? 'this-host' : null;
}

function ipv4Class(a: Ipv4): RefusedClass | null {
  return IPV4_BLOCKS.find((b) => (a & b.mask) >>> 0 === b.base)?.cls ?? null;
}

function ipv6Class(g: Ipv6): RefusedClass | null {
  const block = IPV6_BLOCKS.find((b) => b.base.every((x, i) => (g[i] & b.mask[i]) === x));
  if (block) return block.cls;
  // Outside 2000::/3 nothing is assigned for global unicast: whatever answers there is local.
  return (g[0] & 0xe000) === 0x2000 ? null : 'reserved';
}

/**
 * The IPv4 addresses an IPv6 form carries, each judged as IPv4, and the class of the form when
 * they pass. Mapped and NAT64 (64:ff9b::/96) addresses of a public IPv4 reach that IPv4, and so
 * does 6to4 through a relay: they pass with it. Translated (SIIT) and compatible forms lie in the
 * reserved ::/8 and local-use NAT64 is local by definition: refused whatever they carry. Teredo
 * lies in 2001::/23 and is refused too (a relay that tunnels to an arbitrary client is not a
 * receiver); its server and client are decoded only so the refusal names an internal one.
 */
function embeddedForm(g: Ipv6): { ipv4: Ipv4[]; otherwise: RefusedClass | null } | null {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const last32 = ((g[6] << 16) | g[7]) >>> 0;
  if (zero(0, 5) && g[5] === 0xffff) return { ipv4: [last32], otherwise: null }; // ::ffff:0:0/96 mapped
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return { ipv4: [last32], otherwise: 'reserved' }; // ::ffff:0:0:0/96 translated
  // ::/96 compatible; :: and ::1 are their own addresses, not 0.0.0.0 and 0.0.0.1.
  if (zero(0, 6) && !(g[6] === 0 && g[7] <= 1)) return { ipv4: [last32], otherwise: 'reserved' };
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    if (zero(2, 6)) return { ipv4: [last32], otherwise: null }; // 64:ff9b::/96
    // 64:ff9b:1::/48: the IPv4 sits where a /96 prefix puts it only when the bits between are zero.
    if (g[2] === 1) return { ipv4: zero(3, 6) ? [last32] : [], otherwise: 'local-nat64' };
    return null;
  }
  if (g[0] === 0x2002) return { ipv4: [((g[1] << 16) | g[2]) >>> 0], otherwise: null }; // 6to4: bits 16-47
  if (g[0] === 0x2001 && g[1] === 0) {
    // Teredo 2001::/32: the server in bits 32-63, the client's address inverted in bits 96-127.
    return { ipv4: [((g[2] << 16) | g[3]) >>> 0, ~last32 >>> 0], otherwise: 'protocol' };
  }
  return null;
}

function blocks4(list: [string, RefusedClass][]): { base: number; mask: number; cls: RefusedClass }[] {
  return list.map(([cidr, cls]) => {
    const [ip, bits] = cidr.split('/');
    const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
    return { base: (parseIpv4(ip)! & mask) >>> 0, mask, cls };
  });
}

function blocks6(list: [string, RefusedClass][]): { base: number[]; mask: number[]; cls: RefusedClass }[] {
  return list.map(([cidr, cls]) => {
    const [ip, bits] = cidr.split('/');
    const mask = Array.from({ length: 8 }, (_, i) => {
      const n = Math.min(16, Math.max(0, Number(bits) - 16 * i));
      return n === 0 ? 0 : (0xffff << (16 - n)) & 0xffff;
    });
    return { base: parseIpv6(ip)!.map((x, i) => x & mask[i]), mask, cls };
  });
}

const v4Text = (a: Ipv4) => [a >>> 24, (a >>> 16) & 0xff, (a >>> 8) & 0xff, a & 0xff].join('.');
const v6Text = (g: Ipv6) => g.map((x) => x.toString(16)).join(':');

function parseIpv4(text: string): Ipv4 | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((a, p) => a * 256 + Number(p), 0);
}

/** Eight 16-bit groups, or null; a zone (`fe80::1%eth0`) is ignored, a trailing dotted IPv4 is read. */
function parseIpv6(text: string): number[] | null {
  const addr = text.replace(/%[^%]+$/, '');
  const halves = addr.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    const items = part.split(':');
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (i === items.length - 1 && item.includes('.')) {
        const v4 = parseIpv4(item);
        if (v4 === null) return null;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else if (/^[0-9a-f]{1,4}$/i.test(item)) out.push(parseInt(item, 16));
      else return null;
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return null;
  // A dotted IPv4 may only end the address.
  if (halves.length === 2 && halves[0].includes('.')) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : null;
}
