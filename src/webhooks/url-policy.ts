import { hostRefusedClass } from './address-class';

/**
 * The webhook URL rule (SPEC §4 Webhook endpoints, DECISIONS §25): http or https, at most 2000
 * characters, and unless private hosts are allowed, no loopback, link-local, RFC 1918, RFC 6598,
 * IPv6 ULA or 0.0.0.0 host (address-class.ts). The check is lexical: names are not resolved
 * here; the addresses a name resolves to are checked at each delivery (vetted-lookup.ts).
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
  return hostRefusedClass(hostname) !== null;
}
