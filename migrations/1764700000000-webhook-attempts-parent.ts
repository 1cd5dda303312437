import type { MigrationInterface, QueryRunner } from 'typeorm';
import { hasConstraint, lockedTransaction } from './online';

/**
 * The delivery log's attempts without a foreign key to their delivery. The key's check cost the
 * worker more than anything else it did, and more as webhook_deliveries grew: every backend caches
 * the plan of its foreign-key check, and a plan made while the table was small is a sequential
 * scan, kept until an ANALYZE invalidates it. One connection that planned the check at 20
 * deliveries then took 173 ms to log 50 attempts at 100,000; in the benchmark the worker's result
 * statement grew from 6 to over 100 ms a batch across consecutive scenarios.
 *
 * The check guarded nothing: an attempt is only written by the worker's result statement, for a
 * delivery row that same statement has just updated (so holds locked until it commits). The cascade
 * the key gave is kept by a statement trigger: whatever removes deliveries (an endpoint's deletion,
 * the retention sweep, a game's cascade) removes their attempts in the same statement. Its DELETE
 * is dynamic SQL so that it is planned for the rows at hand each time, not cached like the check.
 *
 * Online (docs/operations.md, Schema changes): the key's removal and the trigger take locks that
 * block the writes of both tables, so they are made in a transaction of their own (`transaction =
 * false`, lockedTransaction) where each waits a few seconds at most for its lock; behind a long
 * transaction it rolls back, lets the writes queued behind it through and tries again. Once the
 * key is gone an earlier run committed it all. The builds before it relied on the key's cascade,
 * which the trigger does in its place: every release may run after it.
 */
export class WebhookAttemptsParent1764700000000 implements MigrationInterface {
  name = 'WebhookAttemptsParent1764700000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      if (await hasConstraint(q, 'webhook_delivery_attempts', 'webhook_delivery_attempts_delivery_id_fkey')) await this.replaceKey(q);
    });
  }

  /** Every statement of the migration, committed together. */
  private async replaceKey(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_delivery_id_fkey`);
    await q.query(`
      CREATE FUNCTION webhook_deliveries_drop_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        EXECUTE 'DELETE FROM webhook_delivery_attempts a USING gone WHERE a.delivery_id = gone.id';
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER webhook_deliveries_drop_attempts AFTER DELETE ON webhook_deliveries
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_drop_attempts()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER webhook_deliveries_drop_attempts ON webhook_deliveries`);
    await q.query(`DROP FUNCTION webhook_deliveries_drop_attempts()`);
    await q.query(`DELETE FROM webhook_delivery_attempts a WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id)`);
    await q.query(`
      ALTER TABLE webhook_delivery_attempts ADD CONSTRAINT webhook_delivery_attempts_delivery_id_fkey
        FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries(id) ON DELETE CASCADE`);
  }
}
