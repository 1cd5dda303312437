import { createHmac } from 'node:crypto';

/**
 * `x-svc-signature` (SPEC §6): `v1=` and the hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed
 * with the endpoint secret's text as UTF-8 (DECISIONS §13).
 */
export function signPayload(secret: string, timestamp: string, rawBody: string | Buffer): string {
  return `v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(rawBody).digest('hex')}`;
}
