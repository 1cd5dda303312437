import { Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { UnitOfWork } from '../db/unit-of-work';
import type { ListVisibility } from '../game-config/game-config';
import { IdentityService } from '../identity/identity.service';
import type { VisibilityDto } from './dto/friends.dto';
import { FriendsGate } from './friends-gate';
import { toVisibilityDto } from './friend-view';
import { FriendsRepository } from './friends.repository';
import { ReadSource } from '../db/replica/read-source';

/** A user's friendsListVisibility (SPEC §2 Friends records, §4 visibility routes). */
@Injectable()
export class VisibilityService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly uow: UnitOfWork,
    private readonly gate: FriendsGate,
    private readonly repo: FriendsRepository,
    private readonly identity: IdentityService,
  ) {}

  async get(game: GameContext, userId: string): Promise<VisibilityDto> {
    const ctx = await this.gate.open(game);
    const svcUserId = await this.identity.find(this.readDb.ds.manager, game.gameId, userId);
    const stored = svcUserId ? await this.repo.visibility(this.readDb.ds.manager, game.gameId, svcUserId) : null;
    return toVisibilityDto(ctx, userId, stored);
  }

  /**
   * Only a value of the game's allowed list is accepted, checked before anything is written so a
   * refused value anchors no one. A user the game has never seen is anchored in the setting's own
   * transaction (DECISIONS §29).
   */
  async set(game: GameContext, userId: string, value: ListVisibility): Promise<VisibilityDto> {
    const ctx = await this.gate.open(game);
    const { allowed } = ctx.config.friends.visibility;
    if (!allowed.includes(value)) throw ApiError.badRequest(`friendsListVisibility must be one of the allowed values: ${allowed.join(', ')}`);
    await this.uow.run(async (tx) => {
      const svcUserId = await this.identity.resolveOrCreate(tx.manager, game.gameId, userId);
      await this.repo.setVisibility(tx.manager, game.gameId, svcUserId, value);
    });
    return toVisibilityDto(ctx, userId, value);
  }
}
