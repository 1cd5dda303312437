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
  /** Taken up from the endpoint's position (PositionsRepository): no row yet, one is written with its result. */
  fresh?: FreshDelivery;
}

/** A first attempt taken up from a position: what its row is written with, and the batch it moves. */
export interface FreshDelivery {
  eventId: string;
  /** The event's creation (the row's created_at, as a commit's row would have it), as Postgres prints it. */
  createdAt: string;
  /** When it was taken up: the attempt's time in the log. */
  claimedAt: string;
  batch: PositionBatch;
}

/**
 * The events one claim took up after an endpoint's position: once all `size` results are written
 * the position moves to (era, xid, seq), if the lease is still `lease`. A result that could not be
 * written (`lost`) keeps it where it is: the lease runs out and the events without a row are sent again.
 */
export interface PositionBatch {
  endpointId: string;
  lease: string;
  era: number;
  xid: string;
  seq: string;
  size: number;
  recorded: number;
  lost: boolean;
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
  /** A first attempt taken up from a position: its row is written with this result. */
  fresh?: FreshDelivery & { endpointId: string };
}
