import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { parsePageLimit } from '../common/pagination/page-limit';
import type { SuggestionsDto } from './dto/friends.dto';
import { FriendsGate } from './friends-gate';
import { SuggestionsRepository } from './suggestions.repository';
import { KEPT_SUGGESTIONS } from './suggestions-sql';
import { ReadSource } from '../db/replica/read-source';

/** SPEC §8: suggestions default to 20 and are capped at 50 whatever the page cap. */
const SUGGESTIONS_DEFAULT = 20;

/**
 * Friend suggestions (SPEC §4 Friends rule 4): the kept list when it still holds (one statement,
 * replica-safe), else computed and kept on the primary (a second one).
 */
@Injectable()
export class SuggestionsService {
  constructor(
    private readonly db: DataSource,
    private readonly readDb: ReadSource,
    private readonly gate: FriendsGate,
    private readonly suggestions: SuggestionsRepository,
  ) {}

  async suggest(game: GameContext, userId: string, rawLimit: string | undefined): Promise<SuggestionsDto> {
    const ctx = await this.gate.discovery(game);
    const q = {
      callingGameId: game.gameId,
      readGameIds: [...ctx.readGameIds].sort(),
      minMutuals: ctx.config.friends.discovery.minMutuals,
      limit: parsePageLimit(rawLimit, SUGGESTIONS_DEFAULT, KEPT_SUGGESTIONS),
    };
    const kept = await this.suggestions.kept(this.readDb.ds, { ...q, userExternalId: userId });
    if (kept.userId === null) return { items: [] };
    return { items: kept.items ?? (await this.suggestions.compute(this.db, { ...q, userId: kept.userId })) };
  }
}
