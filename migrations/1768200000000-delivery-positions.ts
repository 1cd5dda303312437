import type { QueryRunner } from 'typeorm';
import { lockedTransaction } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * Step 6, release B (docs/design/write-path.md): webhook deliveries follow the journal by position.
 * Each endpoint has one position in its game's feed (era, xid, seq); the worker takes the events
 * after it that the endpoint's rules at each event's place let through (webhook_endpoint_epochs,
 * release A) and that have no delivery row, sends them, writes each one's row once its first
 * result is known, and moves the position. This release still writes a row at every commit, as
 * 1.7.0 does, so its worker only passes over them: the next release stops writing them, and a
 * rollback from it to this one loses nothing, since this one's worker sends what it left.
 *
 * Every endpoint gets its position from a trigger, whoever creates it (1.7.0, running beside this
 * release, creates endpoints too): the creating transaction's place, so the events of that
 * transaction and after it are the endpoint's. Each endpoint existing now starts at this
 * migration's place; every event before it has its row. The position row is updated at every
 * batch (the lease, then the move) and holds no indexed column but its key: with a fillfactor of
 * 50 each update stays on its page.
 *
 * Expand, and 1.6.0 may no longer run beside it: its deliveries have random ids, in which the
 * worker would not recognise an event already queued, and would send it again. Creating the
 * trigger holds writes to webhook_endpoints for an instant, under lockedTransaction's timeouts.
 * The down drops the positions: every event has its row in this release.
 */
export class DeliveryPositions1768200000000 implements ReleasedMigration {
  name = 'DeliveryPositions1768200000000';
  readonly release = expandIn('1.8.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      await q.query(`
        CREATE TABLE IF NOT EXISTS webhook_positions (
          endpoint_id  uuid PRIMARY KEY REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
          era          integer NOT NULL,
          xid          xid8 NOT NULL,
          seq          bigint NOT NULL,
          lease_until  timestamptz(3)
        ) WITH (fillfactor = 50)`);
      await q.query(POSITION_FUNCTION);
      await q.query('DROP TRIGGER IF EXISTS svc_position_created ON webhook_endpoints');
      await q.query('CREATE TRIGGER svc_position_created AFTER INSERT ON webhook_endpoints FOR EACH ROW EXECUTE FUNCTION svc_endpoint_position()');
      await q.query(
        `INSERT INTO webhook_positions (endpoint_id, era, xid, seq)
         SELECT w.id, s.era, pg_current_xact_id(), 0 FROM webhook_endpoints w, feed_state s
         ON CONFLICT (endpoint_id) DO NOTHING`,
      );
    });
  }

  async down(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      await q.query('DROP TRIGGER IF EXISTS svc_position_created ON webhook_endpoints');
      await q.query('DROP FUNCTION IF EXISTS svc_endpoint_position()');
      await q.query('DROP TABLE IF EXISTS webhook_positions');
    });
  }
}

/** The era is the feed's in the creating transaction's snapshot, as for the endpoint's first epoch. */
const POSITION_FUNCTION = `
  CREATE OR REPLACE FUNCTION svc_endpoint_position() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    INSERT INTO webhook_positions (endpoint_id, era, xid, seq)
    SELECT NEW.id, s.era, pg_current_xact_id(), 0 FROM feed_state s
    ON CONFLICT (endpoint_id) DO NOTHING;
    RETURN NULL;
  END $$`;
