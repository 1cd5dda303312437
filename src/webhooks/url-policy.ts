import { hostRefusedClass, refusedLabel, type HostAddressSet } from './address-class';

/**
 * The webhook URL rule (SPEC §4 Webhook endpoints, DECISIONS §25): http or https, at most 2000
 * characters, and unless private hosts are allowed, no host that is an address a webhook may not
 * reach (address-class.ts: internal, special-purpose or this server's own), `localhost` or a
 * `*.localhost` name. The check reads the URL: names are not resolved here; the addresses a name
 * resolves to are checked at each delivery (vetted-lookup.ts).
 */
export const MAX_URL_LENGTH = 2000;

/** Null when the url is acceptable, else the reason. `hostAddresses`: this server's (HostAddresses). */
export function webhookUrlProblem(raw: string, allowPrivateHosts: boolean, hostAddresses: HostAddressSet): string | null {
  if (raw.length > MAX_URL_LENGTH) return `url must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must use http or https';
  // Delivery decodes them into an Authorization header; undecodable, no request could be made.
  if (!decodable(url.username) || !decodable(url.password)) return 'url user name and password must be valid percent-encoded UTF-8';
  const refused = allowPrivateHosts ? null : hostRefusedClass(url.hostname, hostAddresses);
  return refused ? `url points at ${refusedLabel(refused)}, which webhooks may not reach` : null;
}

function decodable(part: string): boolean {
  try {
    decodeURIComponent(part);
    return true;
  } catch {
    return false;
  }
}
