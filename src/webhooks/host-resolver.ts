import { Injectable } from '@nestjs/common';
import { promises as dns, type LookupAddress } from 'node:dns';

/**
 * How delivery resolves a webhook's host: the system resolver (/etc/hosts, then DNS), every
 * answer, as a connection would see them. A provider of its own so a test can answer for a name
 * it cannot put in /etc/hosts.
 */
@Injectable()
export class HostResolver {
  lookup(hostname: string, options: { family?: number; hints?: number } = {}): Promise<LookupAddress[]> {
    return dns.lookup(hostname, { all: true, family: options.family ?? 0, hints: options.hints });
  }
}
