import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { ApiKeyLookup, ResolvedApiKey } from '../common/auth/api-key-lookup';
import { PgListener } from '../db/pg-listener';
import { GamesRepository } from './games.repository';

/** Revocations are announced on this channel so every instance drops its cached copy at once. */
export const API_KEYS_CHANNEL = 'svc_api_keys';

/** A safety net only: revocations evict explicitly. */
const TTL_MS = 5 * 60_000;

interface Entry {
  key: ResolvedApiKey | null;
  expires: number;
}

/**
 * Resolved keys kept in memory so the authentication hot path makes no database round trip
 * (SPEC §5). Unknown prefixes are not cached: a key minted on another instance works at once.
 */
@Injectable()
export class ApiKeyCache implements ApiKeyLookup, OnModuleInit {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<ResolvedApiKey | null>>();
  /** Bumped by every eviction, so a load that raced with one does not store a stale copy. */
  private generation = 0;
  /** Lookups answered from the cache or not (for the metrics). */
  readonly lookups = { hit: 0, miss: 0 };

  constructor(
    private readonly repo: GamesRepository,
    private readonly listener: PgListener,
  ) {}

  onModuleInit(): void {
    this.listener.subscribe(
      API_KEYS_CHANNEL,
      (prefix) => this.evict(prefix),
      () => this.clear(),
    );
  }

  resolve(prefix: string): ResolvedApiKey | null | Promise<ResolvedApiKey | null> {
    const hit = this.entries.get(prefix);
    if (hit && hit.expires > Date.now()) {
      this.lookups.hit++;
      return hit.key;
    }
    this.lookups.miss++;
    const pending = this.loading.get(prefix);
    if (pending) return pending;
    const load = this.load(prefix).finally(() => this.loading.delete(prefix));
    this.loading.set(prefix, load);
    return load;
  }

  evict(prefix: string): void {
    this.generation++;
    this.entries.delete(prefix);
    this.loading.delete(prefix);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.loading.clear();
  }

  private async load(prefix: string): Promise<ResolvedApiKey | null> {
    const generation = this.generation;
    const row = await this.repo.findKeyByPrefix(prefix);
    if (!row) return null;
    const key: ResolvedApiKey = {
      keyId: row.id,
      gameId: row.gameId,
      prefix: row.prefix,
      secretHash: row.secretHash,
      revoked: row.revokedAt !== null,
      scopes: row.scopes,
      expiresAt: row.expiresAt?.getTime() ?? null,
    };
    if (generation === this.generation) this.entries.set(prefix, { key, expires: Date.now() + TTL_MS });
    return key;
  }
}
