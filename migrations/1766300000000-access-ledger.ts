import type { QueryRunner } from 'typeorm';
import { expandIn, type ReleasedMigration } from './release';

/**
 * The access ledger: every removal of access other than an erasure (which keeps its own table,
 * `erasures`), recorded so that a restore from a backup taken before it can be undone (`guildhall
 * ledger apply`). An API key's revocation, an operator's deletion, and each change of an
 * operator's role, promotions included: the last one recorded is the role an operator may have at
 * most after a restore.
 *
 * No foreign keys: an entry outlives its key or operator, and is applied to a restored database
 * that may lack them. `target_id` is the key's id or the operator's.
 *
 * It is seeded from what the database already knows, so that an export right after the upgrade
 * holds the removals made before it: every revoked key (at its revocation time), and the operator
 * audit's deletions and role changes (the audit is written with each, in its transaction).
 *
 * Expand: a new table, read and written only by this release; the previous release goes on
 * revoking keys and changing operators without writing here, and on writing `erasures`, which the
 * export still reads.
 */
export class AccessLedger1766300000000 implements ReleasedMigration {
  name = 'AccessLedger1766300000000';
  readonly release = expandIn('1.1.0');

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE access_ledger (
        id         uuid PRIMARY KEY,
        kind       text NOT NULL CHECK (kind IN ('api_key.revoked', 'operator.deleted', 'operator.role_changed')),
        at         timestamptz(3) NOT NULL,
        game_id    uuid,
        target_id  uuid NOT NULL,
        role       text CHECK (role IN ('viewer', 'moderator', 'admin', 'owner')),
        CONSTRAINT access_ledger_game CHECK ((kind = 'api_key.revoked') = (game_id IS NOT NULL)),
        CONSTRAINT access_ledger_role CHECK ((kind = 'operator.role_changed') = (role IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX access_ledger_order ON access_ledger (at, id)`);
    await q.query(`
      INSERT INTO access_ledger (id, kind, at, game_id, target_id)
      SELECT svc_uuidv7(), 'api_key.revoked', k.revoked_at, k.game_id, k.id FROM api_keys k
      WHERE k.revoked_at IS NOT NULL`);
    // The audit's target_id is text: only an operator's id (all the service ever writes there for
    // these actions) is taken, so a hand-written row cannot fail the migration.
    await q.query(`
      INSERT INTO access_ledger (id, kind, at, target_id, role)
      SELECT svc_uuidv7(), x.action, x.at, x.target_id::uuid, CASE WHEN x.action = 'operator.role_changed' THEN x.details->>'to' END
      FROM operator_audit x
      WHERE x.action IN ('operator.deleted', 'operator.role_changed')
        AND x.target_id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
        AND (x.action = 'operator.deleted' OR x.details->>'to' IN ('viewer', 'moderator', 'admin', 'owner'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE access_ledger');
  }
}
