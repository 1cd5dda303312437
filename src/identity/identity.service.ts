import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { uuidv7 } from '../common/ids';
import { IdentityRepository } from './identity.repository';
import { lockUsersForWrite } from './user-lock';

/**
 * The one way to turn an external user id into an internal one. Writes that reference a user
 * call {@link resolveOrCreate} inside their transaction; read paths call {@link find}. Inside a
 * unit of work every lookup first takes the user's write lock (see user-lock.ts), so an erasure
 * of that user cannot run across the write.
 */
@Injectable()
export class IdentityService {
  constructor(private readonly repo: IdentityRepository) {}

  async find(manager: EntityManager, gameId: string, externalId: string): Promise<string | null> {
    await lockUsersForWrite(manager, gameId, [externalId]);
    return this.repo.find(manager, gameId, externalId);
  }

  async findTwo(manager: EntityManager, gameId: string, a: string, b: string): Promise<[string | null, string | null]> {
    await lockUsersForWrite(manager, gameId, [a, b]);
    return this.repo.findTwo(manager, gameId, a, b);
  }

  /** The internal id for an external id, created race-safely on first reference (SPEC §1.4). */
  async resolveOrCreate(manager: EntityManager, gameId: string, externalId: string): Promise<string> {
    await lockUsersForWrite(manager, gameId, [externalId]);
    const existing = await this.repo.find(manager, gameId, externalId);
    if (existing) return existing;
    const candidate = uuidv7();
    const created = await this.repo.insert(manager, gameId, externalId, candidate);
    if (created) return created;
    // Lost the race: ON CONFLICT waited for the winner to commit, so a new statement sees its
    // mapping. The users row inserted beside the conflicting mapping must not stay behind.
    await this.repo.deleteUser(manager, candidate);
    const winner = await this.repo.find(manager, gameId, externalId);
    if (!winner) throw new Error(`identity for ${externalId} vanished while being created`);
    return winner;
  }
}
