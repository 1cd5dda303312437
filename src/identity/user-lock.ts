import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { lockBeforeNextStatement, unitOfWorkClient } from '../db/sql';

/**
 * The lock that orders an erasure (EXTENSIONS X7) and the writes naming the same user of a game:
 * a write holds it shared from before it reads the user's identity until it commits, the erasure
 * exclusive. So a write either commits before the erasure starts reading (and is erased with the
 * rest) or starts after it committed (and meets a game that has never seen the user): never a
 * write half on the old identity. Writes never wait on one another for it.
 */
export function userLockKey(gameId: string, externalUserId: string): bigint {
  return createHash('sha256').update(`svc:user:${gameId}:${externalUserId}`).digest().readBigInt64BE(0);
}

/**
 * Takes the shared lock for each user in a write, riding in the next statement's round trip; once
 * per user and unit of work (it is held to the end).
 */
export async function lockUsersForWrite(m: EntityManager, gameId: string, externalUserIds: readonly string[]): Promise<void> {
  const client = unitOfWorkClient(m);
  if (!client) return;
  for (const id of new Set(externalUserIds)) {
    const key = userLockKey(gameId, id);
    if (client.firstInUnitOfWork(`user-lock:${key}`)) await lockBeforeNextStatement(m, [{ key, exclusive: false }]);
  }
}

/** The erasure's side: waits for the writes naming the user in flight and holds new ones back. */
export async function lockUserForErasure(m: EntityManager, gameId: string, externalUserId: string): Promise<void> {
  await m.query('SELECT pg_advisory_xact_lock($1::bigint)', [userLockKey(gameId, externalUserId).toString()]);
}
