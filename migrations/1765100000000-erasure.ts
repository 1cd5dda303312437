import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexConcurrently, dropIndex, lockedStatement, lockedTransaction, type IndexDefinition } from './online';

/**
 * A player's data, findable and erasable (EXTENSIONS X7).
 *
 * - Mentions: every string anywhere in an audit entry (actor, target, payload) or an event body,
 *   indexed (GIN, hashed values) so the entries and events that name a user, by internal or
 *   external id, are an index read rather than a scan of the game's history.
 * - The audit actor of an erased user is the erasure's pseudonym, which a uuid column cannot hold:
 *   `actor_pseudonym` takes its place (actor_user_id becomes null).
 * - The erasure ledger: one-way hashes of erased ids, never the ids.
 * - The lock that makes an erasure and a write naming the same user happen one after the other
 *   (src/identity/user-lock.ts): writes hold it shared, the erasure exclusive.
 * - Indexes for the rows that name a user outside their own tables: invitations by target, sender
 *   and redeemer, groups by owner.
 *
 * Online (docs/operations.md, Schema changes): the indexes on tables that exist (audit_entries,
 * outbox_events, invitations, groups) are built CONCURRENTLY, so the writes of the release still
 * serving go on while each reads its table; a plain build would block them until the whole
 * migration committed. That cannot happen in a transaction, so this migration runs outside one
 * (`transaction = false`), a step at a time, and every step can run again: functions are replaced
 * by the same, a built index is kept and one left INVALID by an interrupted build is built again,
 * the column and the table are added if missing. The table erasures and its indexes are made in
 * one transaction: new, so empty and unknown to the builds running beside it.
 *
 * Every release may run after it (it only adds). The schema it leaves is the one its first form
 * (everything in one transaction, plain index builds) left.
 */
export class Erasure1765100000000 implements MigrationInterface {
  name = 'Erasure1765100000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (const sql of MENTION_FUNCTIONS) await q.query(sql);
    for (const index of MENTION_INDEXES) await createIndexConcurrently(q, index);
    await lockedStatement(q, 'ALTER TABLE audit_entries ADD COLUMN IF NOT EXISTS actor_pseudonym text');
    for (const index of NAMING_INDEXES) await createIndexConcurrently(q, index);

    // No foreign key to games: the ledger outlives a game's deletion, and is re-applied after a
    // restore into a database where the game may not exist.
    await lockedTransaction(q, async () => {
      await q.query(`
        CREATE TABLE IF NOT EXISTS erasures (
          id            uuid PRIMARY KEY,
          game_id       uuid NOT NULL,
          subject_hash  text NOT NULL CHECK (subject_hash ~ '^[0-9a-f]{64}$'),
          erased_at     timestamptz(3) NOT NULL
        )`);
      await q.query(`CREATE INDEX IF NOT EXISTS erasures_order ON erasures (erased_at, id)`);
      await q.query(`CREATE INDEX IF NOT EXISTS erasures_subject ON erasures (game_id, subject_hash)`);
    });

    await q.query(`
      CREATE OR REPLACE PROCEDURE svc_lock_user_shared(k bigint) LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock_shared(k); END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP PROCEDURE IF EXISTS svc_lock_user_shared(bigint)');
    await lockedStatement(q, 'DROP TABLE IF EXISTS erasures');
    for (const { name } of [...NAMING_INDEXES].reverse()) await dropIndex(q, name);
    await lockedStatement(q, 'ALTER TABLE audit_entries DROP COLUMN IF EXISTS actor_pseudonym');
    for (const { name } of [...MENTION_INDEXES].reverse()) await dropIndex(q, name);
    await q.query('DROP FUNCTION IF EXISTS svc_audit_mentions(uuid, text, jsonb), svc_mentions(jsonb)');
  }
}

/**
 * The functions MENTION_INDEXES index. Built-ins only: an index expression is evaluated with an
 * empty search_path. Not inlined (jsonb_build_array is only stable for general types): the index
 * and the queries both name these functions, so they match.
 */
export const MENTION_FUNCTIONS: readonly string[] = [
  `CREATE OR REPLACE FUNCTION svc_mentions(doc jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT jsonb_path_query_array(doc, 'strict $.** ? (@.type() == "string")') $$`,
  `CREATE OR REPLACE FUNCTION svc_audit_mentions(actor uuid, target text, payload jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT jsonb_path_query_array(payload, 'strict $.** ? (@.type() == "string")') || jsonb_build_array(actor::text, target) $$`,
];

/** Every string of an audit entry (actor, target, payload) or an event body, hashed (GIN, jsonb_path_ops). */
export const MENTION_INDEXES: readonly IndexDefinition[] = [
  { name: 'audit_entries_mentions', table: 'audit_entries', definition: 'USING gin (svc_audit_mentions(actor_user_id, target_id, payload) jsonb_path_ops)' },
  { name: 'outbox_events_mentions', table: 'outbox_events', definition: 'USING gin (svc_mentions(body) jsonb_path_ops)' },
];

/** The rows that name a user outside their own tables. */
export const NAMING_INDEXES: readonly IndexDefinition[] = [
  { name: 'invitations_target', table: 'invitations', definition: '(game_id, svc_external_key(target_user_id)) WHERE target_user_id IS NOT NULL' },
  { name: 'invitations_sender', table: 'invitations', definition: '(game_id, svc_external_key(invited_by_user_id)) WHERE invited_by_user_id IS NOT NULL' },
  { name: 'invitations_used_by', table: 'invitations', definition: '(used_by) WHERE used_by IS NOT NULL' },
  { name: 'groups_owner', table: 'groups', definition: '(owner_user_id) WHERE owner_user_id IS NOT NULL' },
];
