import type { MigrationInterface, QueryRunner } from 'typeorm';
import { lockedTransaction, relationExists } from './online';

/**
 * Webhook endpoints and their deliveries (SPEC §2 Webhook endpoint, §3 Webhook delivery, §6).
 *
 * Online (docs/operations.md, Schema changes): webhook_endpoints' foreign key takes a lock that
 * blocks the writes of games.
 * So it runs in a transaction of its own (`transaction = false`, lockedTransaction) where each
 * statement waits a few seconds at most for its lock; behind a long transaction it rolls back,
 * lets the writes queued behind it through and tries again. Its statements commit together:
 * when webhook_deliveries exists, an earlier run committed them all. The builds before it know
 * none of these tables: every release may run after it.
 */
export class Webhooks1764200000000 implements MigrationInterface {
  name = 'Webhooks1764200000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      if (!(await relationExists(q, 'webhook_deliveries'))) await this.create(q);
    });
  }

  /** Every statement of the migration, committed together. */
  private async create(q: QueryRunner): Promise<void> {
    // Deliveries are enqueued by SQL in the mutation's own transaction: their ids are made there too,
    // time-ordered like every other id (DECISIONS §19).
    await q.query(`
      CREATE FUNCTION svc_uuidv7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
        SELECT encode(
          set_bit(set_bit(
            overlay(uuid_send(gen_random_uuid()) PLACING
                    substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
            52, 1), 53, 1),
          'hex')::uuid
      $$`);

    await q.query(`
      CREATE TABLE webhook_endpoints (
        id                    uuid PRIMARY KEY,
        game_id               uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        url                   text NOT NULL,
        events                text[] NOT NULL DEFAULT '{}',
        format                text NOT NULL DEFAULT 'svc' CHECK (format IN ('svc', 'discord', 'slack')),
        secret                text NOT NULL,
        consecutive_failures  integer NOT NULL DEFAULT 0,
        created_at            timestamptz(3) NOT NULL DEFAULT now(),
        disabled_at           timestamptz(3)
      )`);
    await q.query(`CREATE INDEX webhook_endpoints_game_order ON webhook_endpoints (game_id, created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE webhook_deliveries (
        id               uuid PRIMARY KEY,
        endpoint_id      uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        event_id         char(24) NOT NULL,
        status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts         integer NOT NULL DEFAULT 0,
        next_attempt_at  timestamptz(3) NOT NULL DEFAULT now(),
        last_attempt_at  timestamptz(3),
        last_status      integer,
        last_error       text,
        created_at       timestamptz(3) NOT NULL DEFAULT now(),
        completed_at     timestamptz(3)
      )`);
    // Claims walk each enabled endpoint's due attempts in order (a per-endpoint share of the window).
    await q.query(
      `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending'`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_deliveries, webhook_endpoints');
    await q.query('DROP FUNCTION svc_uuidv7');
  }
}
