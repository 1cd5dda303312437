import type { GameConfig } from './game-config';

/** The config a friends route works with: the calling game's and the games its reads span. */
export interface FriendsContext {
  gameId: string;
  config: GameConfig;
  /** Games whose friendships are read: the network's (SPEC §2 scope rule) or the calling game alone. */
  readGameIds: string[];
}
