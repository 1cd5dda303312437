import type { EntityManager } from 'typeorm';
import type { IdentityService } from '../identity/identity.service';
import type { Party } from './friends.repository';

/**
 * Resolves (creating if needed) the identities of both parties of a write, always in the same
 * order whoever is first: two users requesting or blocking each other at once then wait on each
 * other's new identity rows in one direction only instead of deadlocking. Known users (most
 * writes) cost one statement for both.
 */
export async function resolveParties(
  identity: IdentityService,
  m: EntityManager,
  gameId: string,
  a: string,
  b: string,
): Promise<[Party, Party]> {
  const [first, second] = a < b ? [a, b] : [b, a];
  const known = await identity.findTwo(m, gameId, first, second);
  const ids = new Map<string, string>();
  ids.set(first, known[0] ?? (await identity.resolveOrCreate(m, gameId, first)));
  ids.set(second, known[1] ?? (await identity.resolveOrCreate(m, gameId, second)));
  return [
    { id: ids.get(a)!, externalId: a },
    { id: ids.get(b)!, externalId: b },
  ];
}
