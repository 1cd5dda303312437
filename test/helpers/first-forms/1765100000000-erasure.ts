import type { MigrationInterface, QueryRunner } from 'typeorm';

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
 */
export class Erasure1765100000000 implements MigrationInterface {
  name = 'Erasure1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION svc_mentions(doc jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT jsonb_path_query_array(doc, 'strict $.** ? (@.type() == "string")') $$`);
    // Built-ins only: an index expression is evaluated with an empty search_path. Not inlined
    // (jsonb_build_array is only stable for general types): the index and the queries both name
    // this function, so they match.
    await q.query(`
      CREATE FUNCTION svc_audit_mentions(actor uuid, target text, payload jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT jsonb_path_query_array(payload, 'strict $.** ? (@.type() == "string")') || jsonb_build_array(actor::text, target) $$`);
    await q.query(`CREATE INDEX audit_entries_mentions ON audit_entries USING gin (svc_audit_mentions(actor_user_id, target_id, payload) jsonb_path_ops)`);
    await q.query(`CREATE INDEX outbox_events_mentions ON outbox_events USING gin (svc_mentions(body) jsonb_path_ops)`);
    await q.query('ALTER TABLE audit_entries ADD COLUMN actor_pseudonym text');

    await q.query(`CREATE INDEX invitations_target ON invitations (game_id, svc_external_key(target_user_id)) WHERE target_user_id IS NOT NULL`);
    await q.query(`CREATE INDEX invitations_sender ON invitations (game_id, svc_external_key(invited_by_user_id)) WHERE invited_by_user_id IS NOT NULL`);
    await q.query(`CREATE INDEX invitations_used_by ON invitations (used_by) WHERE used_by IS NOT NULL`);
    await q.query(`CREATE INDEX groups_owner ON groups (owner_user_id) WHERE owner_user_id IS NOT NULL`);

    // No foreign key to games: the ledger outlives a game's deletion, and is re-applied after a
    // restore into a database where the game may not exist.
    await q.query(`
      CREATE TABLE erasures (
        id            uuid PRIMARY KEY,
        game_id       uuid NOT NULL,
        subject_hash  text NOT NULL CHECK (subject_hash ~ '^[0-9a-f]{64}$'),
        erased_at     timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX erasures_order ON erasures (erased_at, id)`);
    await q.query(`CREATE INDEX erasures_subject ON erasures (game_id, subject_hash)`);

    await q.query(`
      CREATE PROCEDURE svc_lock_user_shared(k bigint) LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock_shared(k); END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP PROCEDURE svc_lock_user_shared(bigint)');
    await q.query('DROP TABLE erasures');
    await q.query('DROP INDEX groups_owner, invitations_used_by, invitations_sender, invitations_target');
    await q.query('ALTER TABLE audit_entries DROP COLUMN actor_pseudonym');
    await q.query('DROP INDEX outbox_events_mentions, audit_entries_mentions');
    await q.query('DROP FUNCTION svc_audit_mentions(uuid, text, jsonb), svc_mentions(jsonb)');
  }
}
