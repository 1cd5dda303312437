import type { MigrationInterface, QueryRunner } from 'typeorm';
import { lockedTransaction, relationExists } from './online';

/**
 * Friend suggestions kept per (user, game), checked on every read against version counters instead
 * of being marked stale by every write that could change them.
 *
 * A user's suggestions depend on their own friendships and blocks and on their friends'
 * friendships, nothing else (plus the game's minMutuals and read scope, kept beside the list). So
 * each internal user has a counter raised by every statement that changes a friend or blocked row
 * of theirs, and a kept list records the user's own counter and the sum of their friends' counters,
 * both read in the snapshot it was computed in. Equal own counters mean the same friends; then an
 * equal sum means no friend's counter moved (counters only grow). A friendship change thus writes
 * two counters, whatever the size of the neighbourhood, and a read checks one counter and one per
 * friend.
 *
 * The triggers are per statement, over transition tables, so a player's erasure deleting 5,000
 * friendships raises 5,001 counters in one set-based upsert (sorted, so concurrent writers lock
 * counters in one order). The users whose counters moved are queued for the background refresher,
 * which recomputes the kept lists around them ahead of their next read.
 *
 * A kept list holds the internal ids (items) and, apart, the answer as the calling game named it
 * (named, json: sent as stored).
 *
 * Online (docs/operations.md, Schema changes): the new tables' foreign keys take a lock that
 * blocks the writes of users and games, and the triggers one that blocks those of
 * user_relationships.
 * So it runs in a transaction of its own (`transaction = false`, lockedTransaction) where each
 * statement waits a few seconds at most for its lock; behind a long transaction it rolls back,
 * lets the writes queued behind it through and tries again. Its statements commit together:
 * when friend_suggestions_stale exists, an earlier run committed them all. The triggers only count
 * the relationship writes of the builds before it, which read none of this: every release may run
 * after it.
 */
export class FriendSuggestions1765500000000 implements MigrationInterface {
  name = 'FriendSuggestions1765500000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      if (!(await relationExists(q, 'friend_suggestions_stale'))) await this.create(q);
    });
  }

  /** Every statement of the migration, committed together. */
  private async create(q: QueryRunner): Promise<void> {
    // No foreign key: a counter may outlive its user (a missing row reads as 0), and checking one
    // would cost every friendship write a lookup.
    await q.query(`CREATE TABLE friend_versions (user_id uuid PRIMARY KEY, version bigint NOT NULL)`);
    await q.query(`
      CREATE TABLE friend_suggestions (
        user_id          uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        game_id          uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        read_game_ids    uuid[] NOT NULL,
        min_mutuals      int NOT NULL,
        own_version      bigint NOT NULL,
        friends_version  numeric NOT NULL,
        items            jsonb NOT NULL,
        named            json NOT NULL,
        mentions         uuid[] NOT NULL,
        computed_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, game_id)
      )`);
    // Every user a list names (candidates and samples): a player's erasure removes the lists that name
    // them, so that no trace of their internal id is left.
    await q.query(`CREATE INDEX friend_suggestions_mentions ON friend_suggestions USING gin (mentions)`);
    await q.query(`CREATE TABLE friend_suggestions_stale (user_id uuid PRIMARY KEY)`);
    await q.query(`
      CREATE FUNCTION svc_friend_graph_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        ids uuid[];
      BEGIN
        -- Requests change no one's suggestions; friend and blocked rows, before or after, do.
        IF TG_OP = 'INSERT' THEN
          ids := ARRAY(SELECT DISTINCT u FROM new_rows r, LATERAL (VALUES (r.user_id), (r.other_id)) v(u)
                       WHERE r.type <> 'request' ORDER BY 1);
        ELSIF TG_OP = 'DELETE' THEN
          ids := ARRAY(SELECT DISTINCT u FROM old_rows r, LATERAL (VALUES (r.user_id), (r.other_id)) v(u)
                       WHERE r.type <> 'request' ORDER BY 1);
        ELSE
          ids := ARRAY(SELECT DISTINCT u FROM (SELECT user_id, other_id, type FROM old_rows
                                               UNION ALL SELECT user_id, other_id, type FROM new_rows) r,
                                              LATERAL (VALUES (r.user_id), (r.other_id)) v(u)
                       WHERE r.type <> 'request' ORDER BY 1);
        END IF;
        IF cardinality(ids) > 0 THEN
          INSERT INTO friend_versions AS v (user_id, version) SELECT u, 1 FROM unnest(ids) u
            ON CONFLICT (user_id) DO UPDATE SET version = v.version + 1;
          INSERT INTO friend_suggestions_stale (user_id) SELECT u FROM unnest(ids) u ON CONFLICT DO NOTHING;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER user_relationships_graph_insert AFTER INSERT ON user_relationships
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_friend_graph_changed()`);
    await q.query(`
      CREATE TRIGGER user_relationships_graph_update AFTER UPDATE ON user_relationships
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_friend_graph_changed()`);
    await q.query(`
      CREATE TRIGGER user_relationships_graph_delete AFTER DELETE ON user_relationships
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_friend_graph_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER user_relationships_graph_insert ON user_relationships');
    await q.query('DROP TRIGGER user_relationships_graph_update ON user_relationships');
    await q.query('DROP TRIGGER user_relationships_graph_delete ON user_relationships');
    await q.query('DROP FUNCTION svc_friend_graph_changed()');
    await q.query('DROP TABLE friend_suggestions_stale, friend_suggestions, friend_versions');
  }
}
