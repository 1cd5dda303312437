import { Injectable } from '@nestjs/common';
import { networkInterfaces } from 'node:os';
import { canonicalAddress, type HostAddressSet } from './address-class';

/**
 * The addresses of this server's own interfaces, IPv4 and IPv6, which a webhook may not reach
 * (DECISIONS §25): a service listening on 0.0.0.0 answers on its public address too. Read afresh
 * at every check (some 30 µs), since interfaces come and go (DHCP, a VPN, a container network).
 * A provider of its own so a test can give the server an address it does not have.
 */
@Injectable()
export class HostAddresses {
  current(): HostAddressSet {
    const out = new Set<string>();
    for (const list of Object.values(networkInterfaces())) {
      for (const { address } of list ?? []) {
        const canonical = canonicalAddress(address);
        if (canonical) out.add(canonical);
      }
    }
    return out;
  }
}
