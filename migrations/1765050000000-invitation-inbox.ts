import type { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillInBatches, createIndexConcurrently, dropIndex, lockedStatement, setNotNull, type IndexDefinition } from './online';

/**
 * The invitation inbox (EXTENSIONS X6): who sent an invitation, and the index of a user's pending
 * targeted invitations in a game, newest first. An invitation keeps its group's game (a group never
 * changes game) so the inbox reads one index range per (game, user) instead of joining every game's
 * invitations for that external id. Target ids have no length cap (SPEC §8): the index holds their
 * SHA-256, as user_identities_external does.
 *
 * Online (docs/operations.md, Schema changes). The builds before this migration keep serving while
 * it runs, and insert invitations without game_id (`INSERT INTO invitations (id, group_id, code,
 * role_id, target_user_id, expires_at, max_uses)`), so:
 * 1. game_id and invited_by_user_id are added nullable: a catalog change.
 * 2. The trigger invitations_game_id fills a missing game_id from the group, before the row is
 *    checked: from then on every insert has one, whoever sends it. Only inserts: no release
 *    updates an invitation's group_id or game_id.
 * 3. The rows written before are filled in batches of primary-key range, each batch a short
 *    transaction of its own.
 * 4. NOT NULL by a CHECK added NOT VALID and validated, then SET NOT NULL without a scan; the
 *    CHECK is dropped again, as the end state of this migration never had one.
 * 5. The inbox index, built concurrently.
 * Hence it runs outside a transaction (`transaction = false`), each step on its own, and each step
 * can run again: an interrupted migration is simply run again at the next boot.
 *
 * Every release may run after it, the earlier builds included: the trigger stays, so that their
 * inserts keep working (this release always sends game_id; the trigger then only tests it). The
 * schema is the one the first form of this migration left (an ALTER, an UPDATE of every row and
 * SET NOT NULL in one transaction), plus the trigger and its function. A later contract migration
 * drops both; it may ship in any release after 1.0.0, as long as releases are rolled one at a time
 * (1.0.0 always sends game_id). It is not written yet; it must drop them with IF EXISTS, since a
 * database that applied the first form of this migration never had them.
 */
export class InvitationInbox1765050000000 implements MigrationInterface {
  name = 'InvitationInbox1765050000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedStatement(q, 'ALTER TABLE invitations ADD COLUMN IF NOT EXISTS game_id uuid, ADD COLUMN IF NOT EXISTS invited_by_user_id text');
    await q.query(`
      CREATE OR REPLACE FUNCTION invitations_game_id() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.game_id IS NULL THEN
          NEW.game_id := (SELECT g.game_id FROM groups g WHERE g.id = NEW.group_id);
        END IF;
        RETURN NEW;
      END $$`);
    // Its lock waits for the inserts in flight, which commit with or without game_id: every row the
    // backfill starts after exists by then, and every later one goes through the trigger.
    await lockedStatement(
      q,
      'CREATE OR REPLACE TRIGGER invitations_game_id BEFORE INSERT ON invitations FOR EACH ROW EXECUTE FUNCTION invitations_game_id()',
    );
    await backfillInBatches(q, {
      batch: `
        WITH batch AS (SELECT id FROM invitations WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT $2),
             filled AS (UPDATE invitations i SET game_id = g.game_id FROM batch b, groups g
                        WHERE i.id = b.id AND i.game_id IS NULL AND g.id = i.group_id RETURNING 1)
        SELECT (SELECT id FROM batch ORDER BY id DESC LIMIT 1) AS last, (SELECT count(*) FROM filled) AS filled`,
    });
    await setNotNull(q, 'invitations', 'game_id');
    // Only what an inbox can list: targeted and not used up (accepted or declined); a revoked
    // invitation is deleted. Expiry and the group's deletion are checked on the rows read.
    await createIndexConcurrently(q, TARGET_INBOX);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndex(q, TARGET_INBOX.name);
    await lockedStatement(q, 'DROP TRIGGER IF EXISTS invitations_game_id ON invitations');
    await q.query('DROP FUNCTION IF EXISTS invitations_game_id()');
    await lockedStatement(q, 'ALTER TABLE invitations DROP COLUMN IF EXISTS invited_by_user_id, DROP COLUMN IF EXISTS game_id');
  }
}

export const TARGET_INBOX: IndexDefinition = {
  name: 'invitations_target_inbox',
  table: 'invitations',
  definition: '(game_id, svc_external_key(target_user_id), created_at DESC, id DESC) WHERE target_user_id IS NOT NULL AND used_at IS NULL',
};
