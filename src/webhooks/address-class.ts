/**
 * The addresses a webhook may not reach unless private hosts are allowed (SPEC §4 POST
 * /v1/webhooks, DECISIONS §25): loopback, RFC 1918, link-local, RFC 6598 shared (carrier-grade
 * NAT), IPv6 unique local and unspecified, and IPv6 forms that carry one of those IPv4 addresses.
 * One classification for both checks: of a URL's host at registration, and of every address the
 * host resolves to at delivery.
 */
export type RefusedClass = 'loopback' | 'private' | 'link-local' | 'shared' | 'unique-local' | 'unspecified';

const LABELS: Record<RefusedClass, string> = {
  loopback: 'a loopback address',
  private: 'a private-network address',
  'link-local': 'a link-local address',
  shared: 'a carrier-grade NAT (shared) address',
  'unique-local': 'a unique local address',
  unspecified: 'an unspecified address',
};

/** "a loopback address", as error messages put it. */
export function refusedLabel(c: RefusedClass): string {
  return LABELS[c];
}

/** The class of an IPv4 or IPv6 address a webhook may not reach; null for any other address and for text that is no address. */
export function refusedClass(ip: string): RefusedClass | null {
  const v4 = parseIpv4(ip);
  if (v4) return ipv4Class(v4);
  const v6 = parseIpv6(ip);
  return v6 ? ipv6Class(v6) : null;
}

/**
 * The class of a URL's hostname as the WHATWG parser normalised it (IPv4 in dotted decimal, IPv6
 * in brackets); `localhost` and `*.localhost` are loopback (RFC 6761). Other names are not resolved.
 */
export function hostRefusedClass(hostname: string): RefusedClass | null {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  if (host.startsWith('[') && host.endsWith(']')) {
    const v6 = parseIpv6(host.slice(1, -1));
    return v6 ? ipv6Class(v6) : null;
  }
  const v4 = parseIpv4(host);
  return v4 ? ipv4Class(v4) : null;
}

function ipv4Class([a, b]: number[]): RefusedClass | null {
  if (a === 0) return 'unspecified'; // 0.0.0.0/8, "this network"
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 169 && b === 254) return 'link-local'; // cloud metadata (169.254.169.254) included
  if (a === 100 && b >= 64 && b <= 127) return 'shared';
  return null;
}

/** `g` is the address as eight 16-bit groups. */
function ipv6Class(g: number[]): RefusedClass | null {
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return 'unspecified';
  if (zeros(7) && g[7] === 1) return 'loopback';
  // Forms that carry an IPv4 address in their last 32 bits: mapped (::ffff:0:0/96), which a
  // dual-stack socket connects to over IPv4; the deprecated compatible form (::/96); and the
  // NAT64 well-known prefix (64:ff9b::/96), which a NAT64 gateway inside the network translates.
  const embedded = (zeros(5) && g[5] === 0xffff) || zeros(6) || (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0));
  if (embedded) return ipv4Class([g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff]);
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique-local'; // fc00::/7
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
  return null;
}

function parseIpv4(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number);
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
        if (!v4) return null;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
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
