import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';

/**
 * Whether a journal row may name one of `ids` without holding its hash in `names`: when an id is
 * one of the words writers may leave out of the names (journal_unindexed_names, migration
 * UnindexedNames), or collides with one's hash. The index of names then cannot be trusted to find
 * every change naming the player, and an erasure or an export reads the game's journal instead
 * (rare: a player whose id is a word such as `status`). One short read, before the search.
 */
export async function mayBeUnindexed(m: EntityManager, ids: readonly string[]): Promise<boolean> {
  const [row] = await sqlRows<{ found: boolean }>(
    m,
    `SELECT EXISTS (SELECT 1 FROM journal_unindexed_names u WHERE u.hash IN (SELECT svc_name_hash(x) FROM unnest($1::text[]) AS x)) AS found`,
    [ids],
  );
  return row.found;
}
