import { createHash } from 'node:crypto';

/**
 * Advisory lock keys that serialise the friends writes touching a user in a game. Every write that
 * involves two users takes both keys, always in ascending key order, so two writers never wait on
 * each other in a cycle; the pair rules and the caps of SPEC §8 are then checked and applied
 * under the locks, with the unique indexes as the last word.
 */
export function friendLockKeys(gameId: string, userIds: readonly string[]): string[] {
  const keys = new Set(
    userIds.map((u) => createHash('sha256').update(`friends:${gameId}:${u}`).digest().readBigInt64BE(0)),
  );
  return [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String);
}
