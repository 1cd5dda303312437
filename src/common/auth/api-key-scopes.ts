import { ApiError } from '../errors/api-error';

/** What an API key may do in its game: `read` always, `write` for every change. */
export const API_KEY_SCOPES = ['read', 'write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Today's keys, and a key minted without a choice: full control. */
export const DEFAULT_SCOPES: readonly ApiKeyScope[] = API_KEY_SCOPES;

/** Ten years: the longest `expiresIn` a key may be minted with. */
export const MAX_KEY_LIFETIME_SECONDS = 315_360_000;
export const MIN_KEY_LIFETIME_SECONDS = 60;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Every method but GET, HEAD and OPTIONS may change something, so it needs the `write` scope. */
export const needsWrite = (method: string): boolean => !READ_METHODS.has(method.toUpperCase());

/** What a request needs of its key beyond a matching secret. */
export interface ScopedKey {
  scopes: readonly ApiKeyScope[];
  /** Epoch milliseconds, or null for a key that never expires. */
  expiresAt: number | null;
}

/**
 * Why a key with a proven secret is still refused for this request, or null. The expiry is
 * compared with the clock here, per request, because a cached key outlives its expiry in memory.
 */
export function keyRefusal(key: ScopedKey, method: string, now = Date.now()): ApiError | null {
  if (key.expiresAt !== null && key.expiresAt <= now) {
    return new ApiError('invalid_api_key', `this API key expired at ${new Date(key.expiresAt).toISOString()}`);
  }
  if (!key.scopes.includes('write') && needsWrite(method)) {
    return new ApiError('permission_denied', `this API key lacks the write scope: it may only read (${method} needs write)`);
  }
  return null;
}
