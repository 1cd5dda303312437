/**
 * The webhook URL rule (SPEC §4 Webhook endpoints, DECISIONS §25): http or https, at most 2000
 * characters, and unless private hosts are allowed, no loopback, link-local, RFC 1918, RFC 6598,
 * IPv6 ULA or 0.0.0.0 host. The check is lexical: names are not resolved.
 */
export const MAX_URL_LENGTH = 2000;

/** Null when the url is acceptable, else the reason. */
export function webhookUrlProblem(raw: string, allowPrivateHosts: boolean): string | null {
  if (raw.length > MAX_URL_LENGTH) return `url must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must use http or https';
  if (!allowPrivateHosts && isPrivateHost(url.hostname)) {
    return 'url points at a loopback, link-local or private-network host';
  }
  return null;
}

/** `hostname` as the URL parser normalised it (IPv4 in dotted decimal, IPv6 in brackets). */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host.startsWith('[') && host.endsWith(']')) return isPrivateIpv6(host.slice(1, -1));
  const v4 = parseIpv4(host);
  return v4 !== null && isPrivateIpv4(v4);
}

function parseIpv4(host: string): number[] | null {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number);
}

function isPrivateIpv4([a, b]: number[]): boolean {
  return (
    a === 0 || // 0.0.0.0/8, "this network"
    a === 127 || // loopback
    a === 10 || // RFC 1918
    (a === 172 && b >= 16 && b <= 31) || // RFC 1918
    (a === 192 && b === 168) || // RFC 1918
    (a === 169 && b === 254) || // link-local
    (a === 100 && b >= 64 && b <= 127) // RFC 6598 shared address space
  );
}

function isPrivateIpv6(addr: string): boolean {
  if (addr === '::1' || addr === '::') return true;
  // IPv4-mapped (::ffff:a.b.c.d, which the parser writes as ::ffff:XXXX:XXXX).
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(addr);
  if (mapped) {
    const hi = parseInt(mapped[1], 16);
    const lo = parseInt(mapped[2], 16);
    return isPrivateIpv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  }
  const first = parseInt(addr.split(':')[0] || '0', 16);
  return (first & 0xfe00) === 0xfc00 /* ULA fc00::/7 */ || (first & 0xffc0) === 0xfe80; /* link-local fe80::/10 */
}
