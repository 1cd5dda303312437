import type { MigrationInterface, QueryRunner } from 'typeorm';
import { lockedTransaction, relationExists } from './online';

/**
 * The friends graph (SPEC §2 Friends records, §3 Friend relationship): relationships, friend tags
 * and their attachments, per-user list visibility; and the index the network scope reads games by.
 *
 * Online (docs/operations.md, Schema changes): the new tables' foreign keys take a lock that
 * blocks the writes of games and users, as does the index on games (one row per game: built at once).
 * So it runs in a transaction of its own (`transaction = false`, lockedTransaction) where each
 * statement waits a few seconds at most for its lock; behind a long transaction it rolls back,
 * lets the writes queued behind it through and tries again. Its statements commit together:
 * when friend_settings exists, an earlier run committed them all. The builds before it know none
 * of these tables: every release may run after it.
 */
export class Friends1764000000000 implements MigrationInterface {
  name = 'Friends1764000000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      if (!(await relationExists(q, 'friend_settings'))) await this.create(q);
    });
  }

  /** Every statement of the migration, committed together. */
  private async create(q: QueryRunner): Promise<void> {
    // One table for the three relationship types: a pending `request` is one directed row (sender ->
    // target), a friendship two `friend` rows (one per direction), a block one directed `blocked` row.
    // External ids are stored beside the internal ones (identity mappings never change), so lists
    // and events need no join in the row's own game.
    await q.query(`
      CREATE TABLE user_relationships (
        id                 uuid PRIMARY KEY,
        game_id            uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        user_id            uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        other_id           uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        user_external_id   text NOT NULL,
        other_external_id  text NOT NULL,
        type               text NOT NULL CHECK (type IN ('request', 'friend', 'blocked')),
        created_at         timestamptz(3) NOT NULL DEFAULT now(),
        responded_at       timestamptz(3),
        CONSTRAINT user_relationships_not_self CHECK (user_id <> other_id),
        CONSTRAINT user_relationships_responded CHECK ((type = 'friend') = (responded_at IS NOT NULL))
      )`);
    // At most one row per directed pair and game: a pair is friends, or requested, or blocked.
    await q.query(`CREATE UNIQUE INDEX user_relationships_pair ON user_relationships (user_id, other_id, game_id)`);
    // At most one pending request per unordered pair: two users requesting each other at once
    // cannot both succeed, whatever the application does.
    await q.query(`
      CREATE UNIQUE INDEX user_relationships_one_request
        ON user_relationships (game_id, least(user_id, other_id), greatest(user_id, other_id)) WHERE type = 'request'`);
    // Friends list keyset order (respondedAt, id) descending; other_id included for index-only
    // friends-of-friends scans (suggestions) and friend counts (caps).
    await q.query(`
      CREATE INDEX user_relationships_friends
        ON user_relationships (user_id, game_id, responded_at DESC, id DESC) INCLUDE (other_id) WHERE type = 'friend'`);
    // Outbound requests and the blocks list, newest first.
    await q.query(`
      CREATE INDEX user_relationships_outbound
        ON user_relationships (user_id, game_id, type, created_at DESC, id DESC) WHERE type <> 'friend'`);
    // Inbound requests, "who blocked me", and the users(id) cascade on other_id.
    await q.query(`CREATE INDEX user_relationships_inbound ON user_relationships (other_id, game_id, type, created_at DESC, id DESC)`);

    // No half friendship survives a commit: within a game, a pair holds zero or two `friend` rows.
    await q.query(`
      CREATE FUNCTION user_relationships_check_mirror() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        pairs uuid[][] := ARRAY[]::uuid[][];
        p uuid[];
        n integer;
      BEGIN
        IF TG_OP IN ('INSERT', 'UPDATE') THEN pairs := pairs || ARRAY[[NEW.game_id, NEW.user_id, NEW.other_id]]; END IF;
        IF TG_OP IN ('DELETE', 'UPDATE') THEN pairs := pairs || ARRAY[[OLD.game_id, OLD.user_id, OLD.other_id]]; END IF;
        FOREACH p SLICE 1 IN ARRAY pairs LOOP
          SELECT count(*) INTO n FROM user_relationships r
          WHERE r.game_id = p[1] AND r.type = 'friend'
            AND ((r.user_id = p[2] AND r.other_id = p[3]) OR (r.user_id = p[3] AND r.other_id = p[2]));
          IF n = 1 THEN
            RAISE EXCEPTION 'half friendship between % and % in game %', p[2], p[3], p[1] USING ERRCODE = 'integrity_constraint_violation';
          END IF;
        END LOOP;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER user_relationships_mirror
        AFTER INSERT OR UPDATE OR DELETE ON user_relationships
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION user_relationships_check_mirror()`);

    await q.query(`
      CREATE TABLE friend_tags (
        id          uuid PRIMARY KEY,
        game_id     uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
        color       text CHECK (color ~ '^#[0-9a-fA-F]{6}$'),
        created_at  timestamptz(3) NOT NULL DEFAULT now(),
        updated_at  timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // A user's tags sorted by name (byte order), then id.
    await q.query(`CREATE INDEX friend_tags_owner ON friend_tags (user_id, game_id, name COLLATE "C", id)`);

    // Tags attach to the owner-side friend row only; removing either end removes the attachment.
    await q.query(`
      CREATE TABLE friend_tag_links (
        relationship_id  uuid NOT NULL REFERENCES user_relationships(id) ON DELETE CASCADE,
        tag_id           uuid NOT NULL REFERENCES friend_tags(id) ON DELETE CASCADE,
        created_at       timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (relationship_id, tag_id)
      )`);
    await q.query(`CREATE INDEX friend_tag_links_tag ON friend_tag_links (tag_id, relationship_id)`);

    // Only users who chose a visibility have a row; the others read the configured default.
    await q.query(`
      CREATE TABLE friend_settings (
        user_id                  uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        game_id                  uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        friends_list_visibility  text NOT NULL CHECK (friends_list_visibility IN ('private', 'friends-only', 'public')),
        updated_at               timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, game_id)
      )`);

    await q.query(`CREATE INDEX games_network ON games (network_id) WHERE network_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX games_network');
    await q.query('DROP TABLE friend_settings, friend_tag_links, friend_tags, user_relationships');
    await q.query('DROP FUNCTION user_relationships_check_mirror()');
  }
}
