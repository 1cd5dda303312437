import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { UnitOfWork } from '../db/unit-of-work';
import { recordOperatorAction } from '../operators/operator-audit';
import type { ActingOperator } from '../common/auth/operator-roles';
import type { GameConfigDto, PatchGameConfigDto } from './dto/game-config.dto';
import { diffConfig, mergeConfig, resolveConfig, validateConfig, type GameConfig } from './game-config';
import type { FriendsContext } from './friends-context';
import { FriendsContextCache } from './friends-context-cache';
import { GameConfigRepository, type GameConfigRow } from './game-config.repository';

/** Per-game config (SPEC §2 Game config, §4 admin config routes). */
@Injectable()
export class GameConfigService {
  constructor(
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly repo: GameConfigRepository,
    private readonly cache: FriendsContextCache,
  ) {}

  async get(gameId: string): Promise<GameConfigDto> {
    const row = isUuid(gameId) ? await this.repo.find(this.ds.manager, gameId) : null;
    if (!row) throw ApiError.notFound('game');
    return toDto(row);
  }

  /**
   * Deep-merges `config` into what the operator stored before and validates the merged result;
   * the games row is locked so concurrent PATCHes merge one after the other. Audited only when the
   * resolved config or the networkId changes.
   */
  async patch(gameId: string, dto: PatchGameConfigDto, by: ActingOperator): Promise<GameConfigDto> {
    if (dto.config === undefined && dto.networkId === undefined) {
      throw ApiError.badRequest('body must hold config, networkId or both');
    }
    if (!isUuid(gameId)) throw ApiError.notFound('game');
    return this.uow.run(async (tx) => {
      const row = await this.repo.find(tx.manager, gameId, true);
      if (!row) throw ApiError.notFound('game');
      const stored = dto.config === undefined ? row.config : mergeConfig(row.config, dto.config);
      const resolved = resolveConfig(stored);
      validateConfig(resolved);
      const networkId = dto.networkId === undefined ? row.networkId : dto.networkId;
      await this.repo.update(tx.manager, gameId, stored, networkId);
      this.cache.clearOnCommit(tx);

      const diff = diffConfig(resolveConfig(row.config), resolved);
      const before: Record<string, unknown> = {};
      const after: Record<string, unknown> = {};
      if (Object.keys(diff.before).length) {
        before.config = diff.before;
        after.config = diff.after;
      }
      if (networkId !== row.networkId) {
        before.networkId = row.networkId;
        after.networkId = networkId;
      }
      if (Object.keys(before).length) {
        tx.audit({ gameId, groupId: null, action: 'game.config.updated', targetId: gameId, payload: { before, after } });
        await recordOperatorAction(tx.manager, by, { action: 'game.config_updated', gameId, targetId: gameId, details: { before, after } });
      }
      return toDto({ id: gameId, config: stored, networkId });
    });
  }

  /**
   * The calling game's resolved config and read scope: from the per-process cache, which every
   * config change clears on every instance, else one query. Shared between callers: read only.
   */
  forFriends(gameId: string): Promise<FriendsContext> {
    return this.cache.get(gameId, () => this.loadForFriends(gameId));
  }

  /** The keys the game denies to timed-out members (EXTENSIONS X10), from the same cache. */
  async timeoutDeniedPermissions(gameId: string): Promise<readonly string[]> {
    return (await this.forFriends(gameId)).config.moderation.timeoutDeniedPermissions;
  }

  private async loadForFriends(gameId: string): Promise<FriendsContext> {
    const row = await this.repo.findScoped(this.ds.manager, gameId);
    if (!row) throw ApiError.notFound('game');
    const config = resolveConfig(row.config);
    const readGameIds = config.friends.scope === 'network' && row.networkGameIds.length ? row.networkGameIds : [gameId];
    return deepFreeze({ gameId, config, readGameIds });
  }
}

function toDto(row: GameConfigRow): GameConfigDto {
  return { gameId: row.id, config: resolveConfig(row.config), networkId: row.networkId };
}

/** The cached context is shared by every caller until the next change: none may alter it for the others. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
