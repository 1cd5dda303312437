import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenancy, API keys, identity anchors, the audit log and the event outbox. */
export class Foundation1763700000000 implements MigrationInterface {
  name = 'Foundation1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE games (
        id          uuid PRIMARY KEY,
        name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        network_id  text,
        config      jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at  timestamptz(3) NOT NULL DEFAULT now(),
        updated_at  timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX games_order ON games (created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE api_keys (
        id           uuid PRIMARY KEY,
        game_id      uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        prefix       text NOT NULL UNIQUE,
        secret_hash  bytea NOT NULL,
        created_at   timestamptz(3) NOT NULL DEFAULT now(),
        revoked_at   timestamptz(3)
      )`);
    await q.query(`CREATE INDEX api_keys_game_order ON api_keys (game_id, created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE users (
        id          uuid PRIMARY KEY,
        created_at  timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // One external id per (game, user) both ways: SPEC §1.3 and DECISIONS §6.
    await q.query(`
      CREATE TABLE user_identities (
        game_id      uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        external_id  text NOT NULL,
        user_id      uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at   timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (game_id, external_id),
        UNIQUE (user_id, game_id)
      )`);

    await q.query(`
      CREATE TABLE audit_entries (
        id             uuid PRIMARY KEY,
        game_id        uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        group_id       uuid,
        actor_user_id  uuid,
        action         text NOT NULL,
        target_id      text,
        payload        jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at     timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX audit_entries_game_order ON audit_entries (game_id, created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX audit_entries_group_order ON audit_entries (group_id, created_at DESC, id DESC) WHERE group_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX audit_entries_order ON audit_entries (created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE outbox_events (
        id          char(24) PRIMARY KEY,
        game_id     uuid NOT NULL,
        group_id    uuid,
        type        text NOT NULL,
        body        jsonb NOT NULL,
        created_at  timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX outbox_events_created ON outbox_events (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE outbox_events, audit_entries, user_identities, users, api_keys, games');
  }
}
