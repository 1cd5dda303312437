import { Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import { parsePageLimit } from '../common/pagination/page-limit';
import type { SuggestionsDto } from './dto/friends.dto';
import { FriendsGate } from './friends-gate';
import { FriendReadsRepository } from './friend-reads.repository';
import { ReadSource } from '../db/replica/read-source';

/** SPEC §8: suggestions default to 20 and are capped at 50 whatever the page cap. */
const SUGGESTIONS_DEFAULT = 20;
const SUGGESTIONS_CAP = 50;

/** Friend suggestions (SPEC §4 Friends rule 4), one SQL statement per call. */
@Injectable()
export class SuggestionsService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly gate: FriendsGate,
    private readonly reads: FriendReadsRepository,
  ) {}

  async suggest(game: GameContext, userId: string, rawLimit: string | undefined): Promise<SuggestionsDto> {
    const ctx = await this.gate.discovery(game);
    const limit = parsePageLimit(rawLimit, SUGGESTIONS_DEFAULT, SUGGESTIONS_CAP);
    const items = await this.reads.suggestions(this.readDb.ds, {
      callingGameId: game.gameId,
      readGameIds: ctx.readGameIds,
      userExternalId: userId,
      minMutuals: ctx.config.friends.discovery.minMutuals,
      limit,
    });
    return { items };
  }
}
