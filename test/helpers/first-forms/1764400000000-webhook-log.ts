import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks a receiver can verify with a standard library, inspect and rotate (docs/webhooks.md):
 * the `standard` format, a previous secret that keeps signing until its grace period ends, and the
 * delivery log with one row per attempt.
 */
export class WebhookLog1764400000000 implements MigrationInterface {
  name = 'WebhookLog1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        DROP CONSTRAINT webhook_endpoints_format_check,
        ADD CONSTRAINT webhook_endpoints_format_check CHECK (format IN ('svc', 'discord', 'slack', 'standard')),
        ADD COLUMN previous_secret text,
        ADD COLUMN previous_secret_expires_at timestamptz(3),
        ADD CONSTRAINT webhook_endpoints_previous_secret_expiry CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL))`);
    // The sweep finds the previous secrets whose grace period is over without reading every endpoint.
    await q.query(
      `CREATE INDEX webhook_endpoints_previous_secret ON webhook_endpoints (previous_secret_expires_at) WHERE previous_secret IS NOT NULL`,
    );

    // The delivery log, newest first, per endpoint and status. An unfiltered page merges the three
    // statuses' runs; the index also serves the endpoint's cascades and the retention sweep, so it
    // replaces the plain endpoint index instead of adding a write to every delivery.
    await q.query(
      `CREATE INDEX webhook_deliveries_log ON webhook_deliveries (endpoint_id, status, created_at DESC, id DESC)`,
    );
    await q.query(`DROP INDEX webhook_deliveries_endpoint`);

    await q.query(`
      CREATE TABLE webhook_delivery_attempts (
        delivery_id   uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        number        integer NOT NULL,
        attempted_at  timestamptz(3) NOT NULL,
        status_code   integer,
        error         text,
        duration_ms   integer NOT NULL,
        PRIMARY KEY (delivery_id, number)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_delivery_attempts');
    await q.query(`CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id)`);
    await q.query('DROP INDEX webhook_deliveries_log');
    await q.query('DROP INDEX webhook_endpoints_previous_secret');
    // A standard endpoint keeps its secret: it goes on signed in the svc format.
    await q.query(`UPDATE webhook_endpoints SET format = 'svc' WHERE format = 'standard'`);
    await q.query(`
      ALTER TABLE webhook_endpoints
        DROP CONSTRAINT webhook_endpoints_previous_secret_expiry,
        DROP COLUMN previous_secret_expires_at,
        DROP COLUMN previous_secret,
        DROP CONSTRAINT webhook_endpoints_format_check,
        ADD CONSTRAINT webhook_endpoints_format_check CHECK (format IN ('svc', 'discord', 'slack'))`);
  }
}
