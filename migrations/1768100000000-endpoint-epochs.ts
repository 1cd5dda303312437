import type { QueryRunner } from 'typeorm';
import { lockedTransaction } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * Step 6, release A (docs/design/write-path.md): the history of what each webhook endpoint
 * receives. Today the flush decides which endpoints an event goes to, in its own snapshot; a worker
 * that follows the journal by position (release B) must decide it from the endpoint's rules at the
 * event's place in the feed. So every change of an endpoint's `events` or of whether it is disabled,
 * and its creation, records from which feed position (era, xid) the new rules apply, in the change's
 * own transaction. Several changes in one transaction leave its last rules, which are the ones its
 * own events were matched against at its flush. An up run again adds nothing.
 *
 * A trigger records them, not the service's code: 1.6.0, running beside this release, changes
 * endpoints too (its routes, its worker's automatic disable), and its changes must be in the history
 * B reads. Each endpoint existing now gets its rules at this migration's position. The trigger's
 * lock on webhook_endpoints (creating it waits for the table's writers and holds new ones until the
 * migration commits) is short and taken under lockedTransaction's timeouts; joins only take a key
 * share lock on an endpoint's row, which it does not block.
 *
 * Expand: nothing reads the history before B. The down drops it once no 1.7.0 instance runs.
 */
export class EndpointEpochs1768100000000 implements ReleasedMigration {
  name = 'EndpointEpochs1768100000000';
  readonly release = expandIn('1.7.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      await q.query(`
        CREATE TABLE IF NOT EXISTS webhook_endpoint_epochs (
          endpoint_id  uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
          era          integer NOT NULL,
          xid          xid8 NOT NULL,
          events       text[] NOT NULL,
          disabled     boolean NOT NULL,
          PRIMARY KEY (endpoint_id, era, xid)
        )`);
      await q.query(EPOCH_FUNCTION);
      for (const [name, definition] of TRIGGERS) {
        await q.query(`DROP TRIGGER IF EXISTS ${name} ON webhook_endpoints`);
        await q.query(`CREATE TRIGGER ${name} ${definition} EXECUTE FUNCTION svc_endpoint_epoch()`);
      }
      await q.query(
        `INSERT INTO webhook_endpoint_epochs (endpoint_id, era, xid, events, disabled)
         SELECT w.id, s.era, pg_current_xact_id(), w.events, w.disabled_at IS NOT NULL FROM webhook_endpoints w, feed_state s
         WHERE NOT EXISTS (SELECT 1 FROM webhook_endpoint_epochs e WHERE e.endpoint_id = w.id)`,
      );
    });
  }

  async down(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      for (const [name] of TRIGGERS) await q.query(`DROP TRIGGER IF EXISTS ${name} ON webhook_endpoints`);
      await q.query('DROP FUNCTION IF EXISTS svc_endpoint_epoch()');
      await q.query('DROP TABLE IF EXISTS webhook_endpoint_epochs');
    });
  }
}

/**
 * An update records an epoch only when what the endpoint receives changed, which its trigger's WHEN
 * tests before any function runs: the worker's result writes set disabled_at on every batch, nearly
 * always to what it was.
 */
const TRIGGERS: [name: string, definition: string][] = [
  ['svc_endpoint_created', 'AFTER INSERT ON webhook_endpoints FOR EACH ROW'],
  [
    'svc_endpoint_rules_changed',
    `AFTER UPDATE OF events, disabled_at ON webhook_endpoints FOR EACH ROW
     WHEN (NEW.events IS DISTINCT FROM OLD.events OR (NEW.disabled_at IS NULL) <> (OLD.disabled_at IS NULL))`,
  ],
];

/**
 * The era is the feed's, read in the change's snapshot: a restore's switch to a new era waits for
 * every writer of the journal, and the routes that change an endpoint write their audit entry there.
 */
const EPOCH_FUNCTION = `
  CREATE OR REPLACE FUNCTION svc_endpoint_epoch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    INSERT INTO webhook_endpoint_epochs (endpoint_id, era, xid, events, disabled)
    SELECT NEW.id, s.era, pg_current_xact_id(), NEW.events, NEW.disabled_at IS NOT NULL FROM feed_state s
    ON CONFLICT (endpoint_id, era, xid) DO UPDATE SET events = EXCLUDED.events, disabled = EXCLUDED.disabled;
    RETURN NULL;
  END $$`;
