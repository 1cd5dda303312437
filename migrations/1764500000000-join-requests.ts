import type { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillInBatches, hasConstraint, lockedStatement, lockedTransaction, relationExists } from './online';

/**
 * Join requests for invite-only groups (EXTENSIONS X3) and invitations with several uses (X4).
 *
 * Online (docs/operations.md, Schema changes): outside a transaction (`transaction = false`), in
 * steps that can each run again, each lock waited for a few seconds at most and tried again.
 * - join_requests and its indexes: new, made in one transaction (its keys lock out the writes of
 *   games, groups and users for a moment).
 * - invitations.max_uses and uses: constant defaults, a catalog change. Their CHECKs are added
 *   NOT VALID and validated apart, rather than checked against every invitation under the lock
 *   that blocks their writes; the codes redeemed before are counted in batches of primary-key
 *   range, each a short transaction.
 * The constraints are the ones the first form made (invitations_max_uses_check, inline then, and
 * invitations_uses_range). The builds before it insert invitations without the columns (the
 * defaults fit both checks) and never name them: every release may run after it.
 */
export class JoinRequests1764500000000 implements MigrationInterface {
  name = 'JoinRequests1764500000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      if (await relationExists(q, 'join_requests')) return;
      // game_id repeats the group's (which never changes) so a user's list is one index range per game.
      await q.query(`
        CREATE TABLE join_requests (
          id                   uuid PRIMARY KEY,
          game_id              uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
          group_id             uuid NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
          user_id              uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          external_user_id     text NOT NULL,
          message              text CHECK (char_length(message) <= 500),
          status               text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'declined', 'cancelled')),
          created_at           timestamptz(3) NOT NULL DEFAULT now(),
          decided_at           timestamptz(3),
          decided_by_user_id   text
        )`);
      // At most one pending request per user and group: concurrent creates settle here (409).
      await q.query(`CREATE UNIQUE INDEX join_requests_one_pending ON join_requests (group_id, user_id) WHERE status = 'pending'`);
      await q.query(`CREATE INDEX join_requests_group_status_order ON join_requests (group_id, status, created_at DESC, id DESC)`);
      await q.query(`CREATE INDEX join_requests_group_order ON join_requests (group_id, created_at DESC, id DESC)`);
      await q.query(`CREATE INDEX join_requests_user_order ON join_requests (game_id, user_id, created_at DESC, id DESC)`);
    });

    await lockedStatement(
      q,
      `ALTER TABLE invitations
         ADD COLUMN IF NOT EXISTS max_uses integer NOT NULL DEFAULT 1,
         ADD COLUMN IF NOT EXISTS uses integer NOT NULL DEFAULT 0`,
    );
    if (!(await hasConstraint(q, 'invitations', 'invitations_max_uses_check'))) {
      await lockedStatement(q, 'ALTER TABLE invitations ADD CONSTRAINT invitations_max_uses_check CHECK (max_uses BETWEEN 1 AND 10000) NOT VALID');
    }
    await q.query('ALTER TABLE invitations VALIDATE CONSTRAINT invitations_max_uses_check');
    // Codes redeemed before uses were counted: an accept (not a decline) left a member.joined entry naming the code.
    await backfillInBatches(q, {
      batch: `
        WITH batch AS (SELECT id FROM invitations WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT $2),
             counted AS (
               UPDATE invitations i SET uses = 1 FROM batch b
               WHERE i.id = b.id AND i.uses = 0 AND i.used_at IS NOT NULL
                 AND EXISTS (SELECT 1 FROM audit_entries a
                             WHERE a.group_id = i.group_id AND a.action = 'member.joined' AND a.payload->>'invitationId' = i.id::text)
               RETURNING 1)
        SELECT (SELECT id FROM batch ORDER BY id DESC LIMIT 1) AS last, (SELECT count(*) FROM counted) AS counted`,
    });
    if (!(await hasConstraint(q, 'invitations', 'invitations_uses_range'))) {
      await lockedStatement(q, 'ALTER TABLE invitations ADD CONSTRAINT invitations_uses_range CHECK (uses BETWEEN 0 AND max_uses) NOT VALID');
    }
    await q.query('ALTER TABLE invitations VALIDATE CONSTRAINT invitations_uses_range');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE invitations DROP CONSTRAINT invitations_uses_range, DROP COLUMN uses, DROP COLUMN max_uses');
    await q.query('DROP TABLE join_requests');
  }
}
