import { Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import { GamesService } from '../games/games.service';

/** What the game routes' read services need of their caller: the game every query is scoped to. */
export type GameScope = Pick<GameContext, 'gameId'>;

/**
 * The path's game, for admin routes that reuse a game route's service: the operator reads inside
 * it exactly as its API key would, so another game's ids answer 404 there too. An unknown game is
 * 404 first, as on every admin route.
 */
@Injectable()
export class AdminGameScope {
  constructor(private readonly games: GamesService) {}

  async of(gameId: string): Promise<GameScope> {
    await this.games.requireGame(gameId);
    return { gameId };
  }
}
