import type { IncomingHttpHeaders } from 'node:http';

/**
 * The source of a request (SPEC §8): the socket address, or with TRUST_PROXY the rightmost
 * `x-forwarded-for` hop, the one our own proxy appended and the client cannot forge.
 */
export function clientAddress(
  req: { headers: IncomingHttpHeaders; socket?: { remoteAddress?: string } },
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const xff = req.headers['x-forwarded-for'];
    const joined = Array.isArray(xff) ? xff.join(',') : xff;
    if (joined) {
      const hops = joined.split(',').map((h) => h.trim()).filter(Boolean);
      if (hops.length) return hops[hops.length - 1];
    }
  }
  return req.socket?.remoteAddress ?? 'unknown';
}
