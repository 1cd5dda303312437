import { createHmac } from 'node:crypto';

/**
 * `x-svc-signature` (SPEC §6): `v1=` and the hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed
 * with the endpoint secret's text as UTF-8 (DECISIONS §13).
 */
export function signPayload(secret: string, timestamp: string, rawBody: string | Buffer): string {
  return `v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(rawBody).digest('hex')}`;
}

/**
 * One entry of `webhook-signature` (Standard Webhooks): `v1,` and the base64 HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the same UTF-8 bytes as `svc`.
 */
export function signStandard(secret: string, id: string, timestampSeconds: number, rawBody: string | Buffer): string {
  return `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${timestampSeconds}.`).update(rawBody).digest('base64')}`;
}

/** The secret as Standard Webhooks libraries take it: `whsec_` and the base64 of its key bytes. */
export function standardSecret(secret: string): string {
  return `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;
}
