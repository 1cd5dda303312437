import type { QueryRunner } from 'typeorm';
import { lockedTransaction } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * Step 6, release B2 (docs/design/write-path.md): from this migration on, a commit writes no
 * webhook delivery row. The events after an endpoint's position are its queue; the worker writes a
 * delivery's row with its first result. The schema does not change: what changes is that an event
 * may now be a delivery without a row, and this migration is how the instances of 1.8.0 running
 * beside this release learn it. 1.8.0 moves its positions past the events in one step while every
 * migration applied is one it knows (every commit wrote rows then); with this one applied it reads
 * them one by one and sends those without a row, so a rolling upgrade, and a rollback that runs
 * 1.8.0 on this schema, leave no delivery unsent.
 *
 * Expand: 1.8.0 runs beside it, 1.7.0 may not (its worker claims rows only, and would never send
 * what this release leaves without one). The down, run once no instance of this release is left,
 * writes the rows of the deliveries not yet taken up, pending with no attempt and dated as their
 * events, as 1.8.0's commits would have: without this migration 1.8.0 would move past them.
 */
export class DeliveriesByPosition1768300000000 implements ReleasedMigration {
  name = 'DeliveriesByPosition1768300000000';
  readonly release = expandIn('1.9.0');
  transaction = false;

  async up(): Promise<void> {
    // Recorded in schema_migrations, which is what 1.8.0 reads (see above).
  }

  async down(q: QueryRunner): Promise<void> {
    // The backlog may be large: a long statement, but an insert of new rows blocks no one's writes.
    await lockedTransaction(q, () => q.query(UNTAKEN_ROWS), { statementTimeout: '0' });
  }
}

/**
 * The events after each position that have no row and that the endpoint receives by its rules at
 * each event's place (the newest epoch at or before it); while an endpoint is disabled the read
 * stops at the change that disabled it, as 1.8.0's delivery log reads them.
 */
const UNTAKEN_ROWS = `
  INSERT INTO webhook_deliveries (id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at)
  SELECT svc_delivery_id(p.endpoint_id, left(replace(o.id::text, '-', ''), 24)), p.endpoint_id,
         left(replace(o.id::text, '-', ''), 24), 'pending', 0, o.created_at, o.created_at
  FROM webhook_positions p
  JOIN webhook_endpoints w ON w.id = p.endpoint_id
  LEFT JOIN LATERAL (
    SELECT e.era, e.xid, e.disabled FROM webhook_endpoint_epochs e WHERE e.endpoint_id = p.endpoint_id ORDER BY e.era DESC, e.xid DESC LIMIT 1
  ) rules ON true
  JOIN journal o ON o.game_id = w.game_id AND o.type IS NOT NULL AND o.body IS NOT NULL
    AND (o.era, o.xid, o.seq) > (p.era, p.xid, p.seq)
    AND (NOT coalesce(rules.disabled, false) OR (o.era, o.xid) < (rules.era, rules.xid))
  WHERE coalesce((
    SELECT NOT e.disabled AND (cardinality(e.events) = 0 OR o.type = ANY (e.events))
    FROM webhook_endpoint_epochs e WHERE e.endpoint_id = p.endpoint_id AND (e.era, e.xid) <= (o.era, o.xid)
    ORDER BY e.era DESC, e.xid DESC LIMIT 1), false)
  ON CONFLICT (id) DO NOTHING`;
