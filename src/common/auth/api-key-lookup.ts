import type { ScopedKey } from './api-key-scopes';

/** What the auth guard needs to know of a key; provided by the games module. */
export interface ResolvedApiKey extends ScopedKey {
  keyId: string;
  gameId: string;
  prefix: string;
  secretHash: Buffer;
  revoked: boolean;
}

export interface ApiKeyLookup {
  /**
   * The key with this prefix, or null when none exists: synchronously when it is cached, so the
   * authentication of a request on a known key costs no promise.
   */
  resolve(prefix: string): ResolvedApiKey | null | Promise<ResolvedApiKey | null>;
}

export const API_KEY_LOOKUP = Symbol('API_KEY_LOOKUP');

/** Where the authentication of a request notes which key it accepted; provided by the games module. */
export interface ApiKeyUseLog {
  /** Kept in memory: noting a use costs the request no database round trip (SPEC §5). */
  note(keyId: string): void;
}

export const API_KEY_USE_LOG = Symbol('API_KEY_USE_LOG');
