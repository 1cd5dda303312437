import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The feed survives a restore into another cluster (docs/event-feed.md, "After a restore"). The feed
 * is ordered by the writing transaction's id, which only grows within one cluster: restored into a
 * cluster that has run fewer transactions, new events would sort before the restored ones. Each
 * row now also records its era, and the feed is ordered by (era, xid, seq). When the database holds
 * an event of the current era from a transaction its cluster has not reached yet, it was restored
 * from elsewhere: a new era starts (FeedEra), above every restored row, which keep their place.
 *
 * The era reaches new rows as the column's default, a constant that the switch rewrites: nothing is
 * read per insert, and an insert always sees the current one (a catalog change, not a row version).
 */
export class FeedEras1764800000000 implements MigrationInterface {
  name = 'FeedEras1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE feed_state (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        era integer NOT NULL
      )`);
    await q.query(`INSERT INTO feed_state (era) VALUES (1)`);
    await q.query(`ALTER TABLE outbox_events ADD COLUMN era integer NOT NULL DEFAULT 1`);
    await q.query('DROP INDEX outbox_events_game_feed, outbox_events_group_feed');
    await q.query(`CREATE INDEX outbox_events_game_feed ON outbox_events (game_id, era, xid, seq)`);
    await q.query(`CREATE INDEX outbox_events_group_feed ON outbox_events (group_id, era, xid, seq) WHERE group_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX outbox_events_game_feed, outbox_events_group_feed');
    await q.query(`CREATE INDEX outbox_events_game_feed ON outbox_events (game_id, xid, seq)`);
    await q.query(`CREATE INDEX outbox_events_group_feed ON outbox_events (group_id, xid, seq) WHERE group_id IS NOT NULL`);
    await q.query('ALTER TABLE outbox_events DROP COLUMN era');
    await q.query('DROP TABLE feed_state');
  }
}
