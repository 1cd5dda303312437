import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { ApiKeyScope } from './api-key-scopes';

/** What an authenticated API key resolves to; attached to the request by the auth guard. */
export interface GameContext {
  gameId: string;
  keyId: string;
  keyPrefix: string;
  scopes: readonly ApiKeyScope[];
  /** Epoch milliseconds, or null for a key that never expires. */
  expiresAt: number | null;
}

export const GAME_CONTEXT = Symbol('svc:game-context');

export type WithGameContext = { [GAME_CONTEXT]?: GameContext };

/** The calling game of a game route (`@CurrentGame() game: GameContext`). */
export const CurrentGame = createParamDecorator((_: unknown, ctx: ExecutionContext): GameContext => {
  const game = ctx.switchToHttp().getRequest<WithGameContext>()[GAME_CONTEXT];
  if (!game) throw new Error('CurrentGame used on a route that is not a game route');
  return game;
});
