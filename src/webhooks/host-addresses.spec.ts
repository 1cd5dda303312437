import { networkInterfaces } from 'node:os';
import { canonicalAddress, hostRefusedClass, refusedClass } from './address-class';
import { HostAddresses } from './host-addresses';

/** DECISIONS §25: every address of the host the service runs on is refused, read from its interfaces. */
const listed = Object.values(networkInterfaces()).flatMap((list) => list ?? []);

describe('HostAddresses', () => {
  it("holds every address of every interface, loopback's too, in canonical form", () => {
    const mine = new HostAddresses().current();
    expect(mine.has('127.0.0.1')).toBe(true);
    expect(mine.size).toBe(new Set(listed.map((i) => i.address)).size);
    for (const { address } of listed) expect([address, mine.has(canonicalAddress(address)!)]).toEqual([address, true]);
  });

  it('refuses each of them, as a resolved address and as a URL host, and the mapped form of each IPv4', () => {
    const mine = new HostAddresses().current();
    for (const { address, family } of listed) {
      expect([address, refusedClass(address, mine)]).toEqual([address, expect.any(String)]);
      const host = family === 'IPv6' ? `[${address}]` : address;
      expect([host, hostRefusedClass(new URL(`http://${host}/`).hostname, mine)]).toEqual([host, expect.any(String)]);
      if (family === 'IPv4') expect(refusedClass(`::ffff:${address}`, mine)).not.toBeNull();
    }
  });
});
