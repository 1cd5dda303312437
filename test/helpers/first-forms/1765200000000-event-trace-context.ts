import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace context (`{"traceparent": ..., "tracestate": ...}`) of the request that wrote an
 * event, written only while traces are on and that request was sampled; null otherwise, which
 * costs no space. The webhook attempts of the event link their spans to it (docs/observability.md,
 * Traces). A nullable column without a default: adding it rewrites nothing.
 */
export class EventTraceContext1765200000000 implements MigrationInterface {
  name = 'EventTraceContext1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox_events ADD COLUMN trace_context jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox_events DROP COLUMN trace_context`);
  }
}
