import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Named operators with a role, each with its own token (`jop_<prefix>.<secret>`, the secret kept
 * only as its SHA-256), and the log of what operators and the root token changed through the admin
 * routes. The log keeps the operator's id and name as they were: no foreign key, so deleting an
 * operator leaves their history. Newest first by id, for everyone, per operator or per action.
 * A player's erasure replaces their ids in it as in the game's own audit.
 */
export class Operators1765400000000 implements MigrationInterface {
  name = 'Operators1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE operators (
        id uuid PRIMARY KEY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
        role text NOT NULL CHECK (role IN ('viewer', 'moderator', 'admin', 'owner')),
        token_prefix text NOT NULL UNIQUE,
        token_hash bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz
      )`);
    await q.query(`
      CREATE TABLE operator_audit (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        operator_id uuid,
        operator_name text NOT NULL,
        action text NOT NULL,
        game_id uuid,
        target_id text,
        details jsonb NOT NULL DEFAULT '{}'
      )`);
    await q.query(`CREATE INDEX operator_audit_by_operator ON operator_audit (operator_id, id DESC)`);
    await q.query(`CREATE INDEX operator_audit_by_action ON operator_audit (action, id DESC)`);
    // An erasure finds the entries that name the user (moderation of them) to pseudonymise them.
    await q.query(`CREATE INDEX operator_audit_by_target ON operator_audit (game_id, target_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE operator_audit`);
    await q.query(`DROP TABLE operators`);
  }
}
