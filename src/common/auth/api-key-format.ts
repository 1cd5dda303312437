import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** SPEC §5: `jk_<prefix>.<secret>`; the prefix is stored plain for lookup, the secret only hashed. */
export interface ParsedApiKey {
  prefix: string;
  secret: string;
}

const KEY_PATTERN = /^(jk_[A-Za-z0-9]{1,64})\.([A-Za-z0-9_-]{1,512})$/;
/** RFC 7235: the scheme name is case-insensitive. */
const BEARER_PATTERN = /^Bearer +(\S+) *$/i;

export function parseApiKey(key: string): ParsedApiKey | null {
  const m = KEY_PATTERN.exec(key);
  return m ? { prefix: m[1], secret: m[2] } : null;
}

/** The bearer credential of an Authorization header, or null when absent or of another scheme. */
export function bearerToken(authorization: string | string[] | undefined): string | null {
  if (typeof authorization !== 'string') return null;
  const m = BEARER_PATTERN.exec(authorization);
  return m ? m[1] : null;
}

/** The key of a request when its Authorization header carries a parseable API key. */
export function apiKeyFromHeader(authorization: string | string[] | undefined): ParsedApiKey | null {
  const token = bearerToken(authorization);
  return token ? parseApiKey(token) : null;
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Constant-time comparison of a presented secret against the stored SHA-256 hash. */
export function secretMatches(secret: string, storedHash: Buffer): boolean {
  const presented = hashSecret(secret);
  return presented.length === storedHash.length && timingSafeEqual(presented, storedHash);
}

/**
 * The secret last proven against each resolved key. A client sends the same key on every request:
 * comparing it (in constant time) with the one already proven spares a SHA-256 per request, the
 * largest cost of authentication. Keyed by the cached key object, so an eviction (revocation)
 * forgets it with the key.
 */
const provenSecrets = new WeakMap<object, Buffer>();

/** {@link secretMatches}, remembering a match for `key` so the next call with the same secret skips the hash. */
export function secretMatchesCached(secret: string, key: { secretHash: Buffer }): boolean {
  const presented = Buffer.from(secret, 'latin1');
  const proven = provenSecrets.get(key);
  if (proven && proven.length === presented.length && timingSafeEqual(proven, presented)) return true;
  if (!secretMatches(secret, key.secretHash)) return false;
  provenSecrets.set(key, presented);
  return true;
}

export interface MintedApiKey {
  prefix: string;
  key: string;
  secretHash: Buffer;
}

/** A new key: 8 random bytes of prefix, 32 random bytes of secret (base64url, 43 chars). */
export function mintApiKey(): MintedApiKey {
  const prefix = `jk_${randomBytes(8).toString('hex')}`;
  const secret = randomBytes(32).toString('base64url');
  return { prefix, key: `${prefix}.${secret}`, secretHash: hashSecret(secret) };
}

/** Constant-time equality of two tokens of any length (lengths compared via their hashes). */
export function tokensEqual(a: string, b: string): boolean {
  return timingSafeEqual(hashSecret(a), hashSecret(b));
}
