import { randomBytes } from 'node:crypto';
import { hashSecret } from './api-key-format';

/** `jop_<16 hex>.<43 base64url>`: the prefix is stored plain for lookup, the secret only hashed. */
const TOKEN_PATTERN = /^(jop_[0-9a-f]{16})\.([A-Za-z0-9_-]{43})$/;

export function parseOperatorToken(token: string): { prefix: string; secret: string } | null {
  const m = TOKEN_PATTERN.exec(token);
  return m ? { prefix: m[1], secret: m[2] } : null;
}

export function mintOperatorToken(): { prefix: string; token: string; secretHash: Buffer } {
  const prefix = `jop_${randomBytes(8).toString('hex')}`;
  const secret = randomBytes(32).toString('base64url');
  return { prefix, token: `${prefix}.${secret}`, secretHash: hashSecret(secret) };
}
