import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { isoNN } from '../common/time';
import { UnitOfWork } from '../db/unit-of-work';
import { GroupLookup } from '../groups/group-lookup';
import type { Alongside } from '../groups/groups.repository';
import type { CatalogDto, OverrideDto } from './dto/permission.dto';
import { PermissionCache } from './permission-cache';
import { resolvePermission, type PermissionCheckResult } from './permission-resolver';
import { overrideClearAlongside, overrideSetAlongside, PermissionsRepository } from './permissions.repository';

/** The permission check (SPEC §4), member overrides (DECISIONS §1) and the permission catalog. */
@Injectable()
export class PermissionsService {
  constructor(
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly repo: PermissionsRepository,
    private readonly cache: PermissionCache,
    private readonly lookup: GroupLookup,
  ) {}

  /**
   * One answer, from the cache when fresh: the game route and the admin twin share it. A miss is
   * one query; an answer computed while the group's answers were invalidated is not kept.
   */
  check(gameId: string, userId: string, groupId: string, permission: string): PermissionCheckResult | Promise<PermissionCheckResult> {
    if (!isUuid(groupId)) throw ApiError.notFound('group');
    const key = `${gameId}\u0000${userId}\u0000${permission}`;
    // A hit is answered synchronously: no promise on the hottest path of the service.
    return this.cache.get(groupId, key) ?? this.compute(gameId, userId, groupId, permission, key);
  }

  private async compute(gameId: string, userId: string, groupId: string, permission: string, key: string): Promise<PermissionCheckResult> {
    const generation = this.cache.generation(groupId);
    const facts = await this.repo.facts(this.ds, gameId, groupId, userId, permission);
    if (!facts) throw ApiError.notFound('group');
    const result = resolvePermission(facts);
    this.cache.set(groupId, key, result, generation);
    return result;
  }

  /** Sets an override on a member of any status; audited only when it changes something. */
  async setOverride(game: GameContext, groupId: string, userId: string, permission: string, allowed: boolean): Promise<OverrideDto> {
    return this.uow.run(async (tx) => {
      const { group, memberId, previous } = await this.requireMember(tx.manager, game, groupId, userId, permission, overrideSetAlongside(permission, allowed));
      if (previous !== allowed) {
        tx.audit({
          gameId: game.gameId,
          groupId: group.id,
          action: 'permission.override.set',
          targetId: userId,
          payload: { memberId, permission, allowed },
        });
        this.cache.invalidateOnCommit(tx, group.id);
      }
      return { memberId, permission, allowed };
    });
  }

  /** Clears an override; idempotent. */
  async clearOverride(game: GameContext, groupId: string, userId: string, permission: string): Promise<void> {
    await this.uow.run(async (tx) => {
      const { group, memberId, previous } = await this.requireMember(tx.manager, game, groupId, userId, permission, overrideClearAlongside(permission));
      if (previous === null) return;
      tx.audit({
        gameId: game.gameId,
        groupId: group.id,
        action: 'permission.override.cleared',
        targetId: userId,
        payload: { memberId, permission, allowed: previous },
      });
      this.cache.invalidateOnCommit(tx, group.id);
    });
  }

  async catalog(gameId: string): Promise<CatalogDto> {
    const rows = await this.repo.catalog(this.ds.manager, gameId);
    return { items: rows.map((r) => ({ permission: r.permission, createdAt: isoNN(r.createdAt) })) };
  }

  /** The group and its member `userId`, with `change` (the override's) made in the same statement. */
  private async requireMember(m: EntityManager, game: GameContext, groupId: string, userId: string, permission: string, change: Alongside) {
    if (permission.length < 1 || permission.length > 128) throw ApiError.badRequest('permission must be 1-128 characters');
    const { group, alongside } = await this.lookup.liveWithUser(m, game.gameId, groupId, userId, { lock: true, with: change });
    if (!alongside) throw ApiError.notFound('member');
    return { group, memberId: alongside.id as string, previous: alongside.previous as boolean | null };
  }
}
