import { Injectable, type OnModuleInit } from '@nestjs/common';
import { PgListener } from '../db/pg-listener';
import type { Tx } from '../db/unit-of-work';
import type { FriendsContext } from './friends-context';

/**
 * Any game's config or networkId change is announced on this channel. A game's read scope depends
 * on the other games of its network, so every instance drops every cached context on it.
 */
export const GAME_CONFIG_CHANNEL = 'svc_game_config';

/** A safety net only (a notification lost between a dropped listener and its reconnect): changes clear explicitly. */
const TTL_MS = 60_000;

interface Entry {
  ctx: FriendsContext;
  expires: number;
}

/**
 * The friends context of each game (resolved config and read games) in memory, so a friends read
 * makes no config query. Cleared whole when a config change commits: here at once (the next call on
 * this instance sees the change) and on every other instance through NOTIFY.
 */
@Injectable()
export class FriendsContextCache implements OnModuleInit {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<FriendsContext>>();
  /** Bumped by every clear, so a load that raced with one does not store what it read before. */
  private generation = 0;

  constructor(private readonly listener: PgListener) {}

  onModuleInit(): void {
    this.listener.subscribe(
      GAME_CONFIG_CHANNEL,
      () => this.clear(),
      () => this.clear(),
    );
  }

  /** The cached context of a game, else `load`'s (shared by concurrent callers). */
  get(gameId: string, load: () => Promise<FriendsContext>): Promise<FriendsContext> {
    const hit = this.entries.get(gameId);
    if (hit && hit.expires > Date.now()) return Promise.resolve(hit.ctx);
    const pending = this.loading.get(gameId);
    if (pending) return pending;
    const generation = this.generation;
    const loaded = load()
      .then((ctx) => {
        if (generation === this.generation) this.entries.set(gameId, { ctx, expires: Date.now() + TTL_MS });
        return ctx;
      })
      .finally(() => {
        if (this.loading.get(gameId) === loaded) this.loading.delete(gameId);
      });
    this.loading.set(gameId, loaded);
    return loaded;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.loading.clear();
  }

  /** Stages the clearing of every instance's cache with the commit of `tx`. */
  clearOnCommit(tx: Tx): void {
    tx.afterCommit(() => this.clear());
    tx.notify(GAME_CONFIG_CHANNEL, '');
  }
}
