import type { SvcEvent } from '../events/event';
import { signPayload, signStandard } from './signature';

/** What signs an attempt: the secret, and the one it replaced while that one's grace period lasts. */
export interface SigningKeys {
  secret: string;
  previousSecret: string | null;
}

/**
 * The `svc` headers (SPEC §6). During a rotation's grace period the replaced secret's signature
 * goes in `x-svc-signature-previous`, so a receiver that still holds only the old secret verifies.
 */
export function svcHeaders(keys: SigningKeys, deliveryId: string, event: SvcEvent, body: string, now: Date): Record<string, string> {
  const timestamp = now.toISOString();
  const headers: Record<string, string> = {
    'x-svc-event': event.type,
    'x-svc-event-id': event.id,
    'x-svc-delivery-id': deliveryId,
    'x-svc-timestamp': timestamp,
    'x-svc-signature': signPayload(keys.secret, timestamp, body),
  };
  if (keys.previousSecret !== null) headers['x-svc-signature-previous'] = signPayload(keys.previousSecret, timestamp, body);
  return headers;
}

/**
 * The Standard Webhooks headers: the event id (stable across retries, for deduplication), the
 * signing time in whole seconds, and the signatures, space-separated, the current secret's first.
 */
export function standardHeaders(keys: SigningKeys, event: SvcEvent, body: string, now: Date): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const secrets = keys.previousSecret === null ? [keys.secret] : [keys.secret, keys.previousSecret];
  return {
    'webhook-id': event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signStandard(s, event.id, timestamp, body)).join(' '),
  };
}
