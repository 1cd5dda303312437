import type { SvcEvent } from '../events/event';
import type { TraceCarrier } from '../observability/tracing/tracing';
import type { WebhookFormat } from './payload-formats';

export interface EndpointRow {
  id: string;
  gameId: string;
  url: string;
  events: string[];
  format: WebhookFormat;
  secret: string;
  createdAt: Date;
  disabledAt: Date | null;
  /** While the secret replaced by the last rotation still signs; null once its grace period is over. */
  previousSecretExpiresAt: Date | null;
}

export const ENDPOINT_COLUMNS = `w.id, w.game_id AS "gameId", w.url, w.events, w.format, w.secret,
  w.created_at AS "createdAt", w.disabled_at AS "disabledAt",
  CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret_expires_at END AS "previousSecretExpiresAt"`;

/** A claimed delivery attempt with everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  attempts: number;
  url: string;
  format: WebhookFormat;
  secret: string;
  /** The secret the last rotation replaced, while its grace period lasts. */
  previousSecret: string | null;
  /** Null when the event's outbox row is gone (kept EVENT_RETENTION_DAYS, at least a day: beyond the last retry). */
  event: SvcEvent | null;
  /** The trace context of the request that wrote the event, when it was traced. */
  traceContext: TraceCarrier | null;
}

/** The result of one finished attempt, as recorded on its row. */
export interface AttemptRecord {
  id: string;
  /** The attempt number the claim gave it: the result applies to that attempt only. */
  attempts: number;
  /** `retry` only while attempts remain (the 6th failure is `failed`). */
  outcome: 'delivered' | 'retry' | 'failed';
  status: number | null;
  error: string | null;
  /** The wait before the next attempt, for `retry`. */
  retryInMs: number | null;
  durationMs: number;
}
