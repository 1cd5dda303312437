import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Join requests for invite-only groups (EXTENSIONS X3) and invitations with several uses (X4). */
export class JoinRequests1764500000000 implements MigrationInterface {
  name = 'JoinRequests1764500000000';

  async up(q: QueryRunner): Promise<void> {
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

    await q.query(`
      ALTER TABLE invitations
        ADD COLUMN max_uses integer NOT NULL DEFAULT 1 CHECK (max_uses BETWEEN 1 AND 10000),
        ADD COLUMN uses integer NOT NULL DEFAULT 0`);
    // Codes redeemed before uses were counted: an accept (not a decline) left a member.joined entry naming the code.
    await q.query(`
      UPDATE invitations i SET uses = 1
      WHERE i.used_at IS NOT NULL
        AND EXISTS (SELECT 1 FROM audit_entries a
                    WHERE a.group_id = i.group_id AND a.action = 'member.joined' AND a.payload->>'invitationId' = i.id::text)`);
    await q.query(`ALTER TABLE invitations ADD CONSTRAINT invitations_uses_range CHECK (uses BETWEEN 0 AND max_uses)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE invitations DROP CONSTRAINT invitations_uses_range, DROP COLUMN uses, DROP COLUMN max_uses');
    await q.query('DROP TABLE join_requests');
  }
}
