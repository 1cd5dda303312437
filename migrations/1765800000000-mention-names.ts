import type { QueryRunner } from 'typeorm';
import { expandIn, type ReleasedMigration } from './release';

/**
 * Mentions by name: the ids a player's export and erasure look for are found among the object keys
 * of a document too, not only among its string values (`metadata: { ranks: { "<player>": "officer" } }`).
 *
 * - `svc_names(doc)`: every string value and every object key, anywhere in the document.
 * - `svc_audit_names(actor, target, payload)`: the same of an audit payload, with its actor (as
 *   text) and its target.
 * - Their GIN indexes (jsonb_path_ops, hashed values) on audit_entries, outbox_events and
 *   operator_audit (whose details the erasure also rewrites): the rows naming a user stay an index
 *   read rather than a scan of the game's history.
 *
 * An expand migration. The functions and indexes of Erasure1765100000000 (svc_mentions,
 * svc_audit_mentions, audit_entries_mentions, outbox_events_mentions) stay: the previous release,
 * whose queries name them, keeps running while this one is applied and beside the release that
 * brings it, which queries the new ones only. A later contract migration drops the old ones; it may
 * ship only in a release after this one, once no instance of an earlier release runs. It is not
 * written yet.
 *
 * Built without blocking writes: `CREATE INDEX CONCURRENTLY`, which cannot run in a transaction,
 * so this migration runs outside one (`transaction = false`, honoured by migrationsTransactionMode
 * 'each'), one statement at a time. Each statement can run again: the functions are replaced by
 * the same, an index already built is kept, and an index left INVALID by a build that was
 * interrupted (a crash, a cancel, a timeout) is dropped and built again. Meanwhile every write to
 * the three tables keeps going; each one costs one more index entry for the two GIN indexes of a
 * table until the contract migration.
 *
 * A build reads its whole table and waits for the transactions older than it (a running export's
 * snapshot, say): on a long history the instance applying it takes minutes to start listening,
 * while the instances of the previous release keep serving. Instances booting together take turns
 * on the migration lock without holding a snapshot while they wait (src/db/data-source.ts), which
 * a concurrent build would otherwise wait for for ever.
 */
export class MentionNames1765800000000 implements ReleasedMigration {
  name = 'MentionNames1765800000000';
  readonly release = expandIn('1.0.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    // Built-ins only, nothing schema-qualified: an index expression is evaluated with a search_path
    // holding only pg_catalog (during index builds, vacuum, analyze), so the audit variant repeats
    // the paths instead of calling svc_names. PL/pgSQL, never inlined: the indexes and the queries
    // both name these functions, so they match, and the planner prices a call at its COST (a walk
    // of the whole document, some 40 µs), not at the two operators of an inlined body. Priced as
    // operators, a scan of a game's few thousand events testing each one looked cheaper than the
    // index, and took a hundred times longer.
    await q.query(`
      CREATE OR REPLACE FUNCTION svc_names(doc jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 100
      AS $$ BEGIN
        RETURN jsonb_path_query_array(doc, 'strict $.** ? (@.type() == "string")')
            || jsonb_path_query_array(doc, 'strict $.** ? (@.type() == "object").keyvalue().key');
      END $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION svc_audit_names(actor uuid, target text, payload jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 100
      AS $$ BEGIN
        RETURN jsonb_path_query_array(payload, 'strict $.** ? (@.type() == "string")')
            || jsonb_path_query_array(payload, 'strict $.** ? (@.type() == "object").keyvalue().key')
            || jsonb_build_array(actor::text, target);
      END $$`);
    for (const index of NAME_INDEXES) await buildConcurrently(q, index);
  }

  /**
   * Run inside a transaction by TypeORM whatever the migration says, so the indexes are dropped
   * plainly there, giving up rather than queueing writes behind a long reader; outside one,
   * concurrently.
   */
  async down(q: QueryRunner): Promise<void> {
    const inTransaction = q.isTransactionActive;
    if (inTransaction) await q.query(`SET LOCAL lock_timeout = '5s'`);
    for (const { name } of [...NAME_INDEXES].reverse()) await q.query(`DROP INDEX ${inTransaction ? '' : 'CONCURRENTLY '}IF EXISTS ${name}`);
    await q.query('DROP FUNCTION IF EXISTS svc_audit_names(uuid, text, jsonb)');
    await q.query('DROP FUNCTION IF EXISTS svc_names(jsonb)');
  }
}

interface NameIndex {
  name: string;
  table: string;
  expression: string;
}

export const NAME_INDEXES: readonly NameIndex[] = [
  { name: 'audit_entries_names', table: 'audit_entries', expression: 'svc_audit_names(actor_user_id, target_id, payload)' },
  { name: 'outbox_events_names', table: 'outbox_events', expression: 'svc_names(body)' },
  { name: 'operator_audit_names', table: 'operator_audit', expression: 'svc_names(details)' },
];

/** The index, built concurrently unless it exists and is valid; an invalid one is dropped and built again. */
async function buildConcurrently(q: QueryRunner, { name, table, expression }: NameIndex): Promise<void> {
  const [found] = (await q.query(
    `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace`,
    [name],
  )) as { valid: boolean }[];
  if (found?.valid) return;
  if (found) await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${table} USING gin (${expression} jsonb_path_ops)`);
}
