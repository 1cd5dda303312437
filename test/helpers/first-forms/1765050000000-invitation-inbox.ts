import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The invitation inbox (EXTENSIONS X6): who sent an invitation, and the index of a user's pending
 * targeted invitations in a game, newest first. An invitation keeps its group's game (a group never
 * changes game) so the inbox reads one index range per (game, user) instead of joining every game's
 * invitations for that external id. Target ids have no length cap (SPEC §8): the index holds their
 * SHA-256, as user_identities_external does.
 */
export class InvitationInbox1765050000000 implements MigrationInterface {
  name = 'InvitationInbox1765050000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE invitations ADD COLUMN game_id uuid, ADD COLUMN invited_by_user_id text');
    await q.query('UPDATE invitations i SET game_id = g.game_id FROM groups g WHERE g.id = i.group_id');
    await q.query('ALTER TABLE invitations ALTER COLUMN game_id SET NOT NULL');
    // Only what an inbox can list: targeted and not used up (accepted or declined); a revoked
    // invitation is deleted. Expiry and the group's deletion are checked on the rows read.
    await q.query(`
      CREATE INDEX invitations_target_inbox
      ON invitations (game_id, svc_external_key(target_user_id), created_at DESC, id DESC)
      WHERE target_user_id IS NOT NULL AND used_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX invitations_target_inbox');
    await q.query('ALTER TABLE invitations DROP COLUMN invited_by_user_id, DROP COLUMN game_id');
  }
}
