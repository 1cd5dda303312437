import type { MigrationInterface, QueryRunner } from 'typeorm';
import { lockedStatement } from './online';

/**
 * The W3C trace context (`{"traceparent": ..., "tracestate": ...}`) of the request that wrote an
 * event, written only while traces are on and that request was sampled; null otherwise, which
 * costs no space. The webhook attempts of the event link their spans to it (docs/observability.md,
 * Traces). A nullable column without a default: adding it rewrites nothing.
 *
 * Online (docs/operations.md, Schema changes): a catalog change, made with a short lock_timeout and
 * tried again when a long transaction holds the table (`transaction = false`, lockedStatement).
 * The builds before it never name the column: every release may run after it.
 */
export class EventTraceContext1765200000000 implements MigrationInterface {
  name = 'EventTraceContext1765200000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedStatement(q, `ALTER TABLE outbox_events ADD COLUMN IF NOT EXISTS trace_context jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await lockedStatement(q, `ALTER TABLE outbox_events DROP COLUMN IF EXISTS trace_context`);
  }
}
