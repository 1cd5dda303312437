import type { SvcEvent } from '../events/event';
import { classifyResponse, type AttemptOutcome } from './backoff';
import { formatPayload, type WebhookFormat } from './payload-formats';
import { signPayload } from './signature';

/** SPEC §6: no response within 10 seconds counts as a failed attempt. */
export const SEND_TIMEOUT_MS = 10_000;

export interface Attempt {
  deliveryId: string;
  url: string;
  format: WebhookFormat;
  secret: string;
  event: SvcEvent;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  status: number | null;
}

/** The request of one attempt: svc deliveries are signed; discord and slack ones are not (SPEC §5.5). */
export function buildRequest(a: Attempt, now: Date): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(formatPayload(a.format, a.event));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'guildhall-webhooks/1' };
  if (a.format === 'svc') {
    const timestamp = now.toISOString();
    Object.assign(headers, {
      'x-svc-event': a.event.type,
      'x-svc-event-id': a.event.id,
      'x-svc-delivery-id': a.deliveryId,
      'x-svc-timestamp': timestamp,
      'x-svc-signature': signPayload(a.secret, timestamp, body),
    });
  }
  return { body, headers };
}

/** Sends one attempt and classifies what came back. Never throws. */
export async function sendAttempt(a: Attempt, timeoutMs = SEND_TIMEOUT_MS): Promise<AttemptResult> {
  const { body, headers } = buildRequest(a, new Date());
  try {
    const res = await fetch(a.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel().catch(() => undefined);
    return { outcome: classifyResponse(res.status), status: res.status };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const reason = e.name === 'TimeoutError' ? `no response within ${timeoutMs} ms` : `network error: ${e.cause?.code ?? e.message}`;
    return { outcome: { kind: 'retry', reason }, status: null };
  }
}
