import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { parsePageLimit } from '../common/pagination/page-limit';
import { IdentityService } from '../identity/identity.service';
import type { SuggestionsDto } from './dto/friends.dto';
import { FriendsGate } from './friends-gate';
import { FriendsRepository } from './friends.repository';

/** SPEC §8: suggestions default to 20 and are capped at 50 whatever the page cap. */
const SUGGESTIONS_DEFAULT = 20;
const SUGGESTIONS_CAP = 50;

/** Friend suggestions (SPEC §4 Friends rule 4), one SQL statement per call. */
@Injectable()
export class SuggestionsService {
  constructor(
    private readonly ds: DataSource,
    private readonly gate: FriendsGate,
    private readonly repo: FriendsRepository,
    private readonly identity: IdentityService,
  ) {}

  async suggest(game: GameContext, userId: string, rawLimit: string | undefined): Promise<SuggestionsDto> {
    const ctx = await this.gate.discovery(game);
    const limit = parsePageLimit(rawLimit, SUGGESTIONS_DEFAULT, SUGGESTIONS_CAP);
    const svcUserId = await this.identity.find(this.ds.manager, game.gameId, userId);
    if (!svcUserId) return { items: [] };
    const items = await this.repo.suggestions(this.ds.manager, {
      userId: svcUserId,
      gameIds: ctx.readGameIds,
      callingGameId: game.gameId,
      minMutuals: ctx.config.friends.discovery.minMutuals,
      limit,
    });
    return { items };
  }
}
