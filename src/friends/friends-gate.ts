import { Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import type { FriendsContext } from '../game-config/friends-context';
import { GameConfigService } from '../game-config/game-config.service';

/**
 * The switches in front of every friends route (SPEC §4 Friends): `friends.enabled=false` answers
 * 404 everywhere, and each optional part (blocks, tags, discovery) 404s on its own routes when off.
 */
@Injectable()
export class FriendsGate {
  constructor(private readonly configs: GameConfigService) {}

  async open(game: GameContext): Promise<FriendsContext> {
    const ctx = await this.configs.forFriends(game.gameId);
    if (!ctx.config.friends.enabled) throw new ApiError('not_found', 'friends are disabled in this game');
    return ctx;
  }

  async blocks(game: GameContext): Promise<FriendsContext> {
    const ctx = await this.open(game);
    if (!ctx.config.blocks.enabled) throw new ApiError('not_found', 'blocks are disabled in this game');
    return ctx;
  }

  async tags(game: GameContext): Promise<FriendsContext> {
    const ctx = await this.open(game);
    if (!ctx.config.friends.tags.enabled) throw new ApiError('not_found', 'friend tags are disabled in this game');
    return ctx;
  }

  async discovery(game: GameContext): Promise<FriendsContext> {
    const ctx = await this.open(game);
    if (!ctx.config.friends.discovery.enabled) throw new ApiError('not_found', 'friend suggestions are disabled in this game');
    return ctx;
  }
}

