import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { refusedClass, refusedLabel, type HostAddressSet } from './address-class';

/** Every address `hostname` resolves to (dns.lookup with `all`); see HostResolver. */
export type Resolve = (hostname: string, options: { family?: number; hints?: number }) => Promise<LookupAddress[]>;

/** An attempt not made: its host is, or resolves to, an address a webhook may not reach. */
export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

/**
 * Null when every address may be reached, else why not. One refused address refuses them all:
 * a name that answers with a public and an internal address is not one to deliver to, and
 * which answer a connection would use is not for the name's owner to steer. The reason names the
 * class, never the address (DECISIONS §25): the game reads it in the delivery log, and what an
 * internal name resolves to is not the game's to learn.
 */
export function addressRefusal(hostname: string, addresses: readonly LookupAddress[], hostAddresses: HostAddressSet): string | null {
  for (const { address } of addresses) {
    if (!isIP(address)) return `refused: ${hostname} resolves to something that is not an IP address`;
    const c = refusedClass(address, hostAddresses);
    if (c) return `refused: ${hostname} resolves to ${refusedLabel(c)}`;
  }
  return null;
}

/**
 * The `lookup` of the delivery agents: resolves the host once, checks every answer (unless
 * private hosts are allowed) against the ranges and this server's addresses as they are at that
 * moment, and hands the socket the checked addresses — the connection is made to what was checked,
 * with no second lookup a rebinding name could answer differently. The URL's hostname still names
 * the request (Host header, TLS servername), so certificates verify as usual.
 */
export function vettedLookup(resolve: Resolve, allowPrivateHosts: boolean, hostAddresses: () => HostAddressSet): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    resolve(hostname, { family, hints: options.hints }).then(
      (all) => {
        const refusal = allowPrivateHosts ? null : addressRefusal(hostname, all, hostAddresses());
        const usable = family ? all.filter((a) => a.family === family) : all;
        if (refusal) callback(new RefusedAddressError(refusal), '');
        else if (!usable.length) callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }), '');
        else if (options.all) callback(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
