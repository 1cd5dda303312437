import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The game's event feed (docs/event-feed.md): every outbox row records the transaction that wrote
 * it and a sequence number, and the feed is ordered by (xid, seq). Readers stop below the oldest
 * transaction still in progress, so a transaction that commits late can never land behind them.
 */
export class EventFeed1764300000000 implements MigrationInterface {
  name = 'EventFeed1764300000000';

  async up(q: QueryRunner): Promise<void> {
    // The default is evaluated in the inserting transaction: its own top-level id, at no extra cost
    // (a transaction that writes already has one). Rows written before this migration share one.
    await q.query(`
      ALTER TABLE outbox_events
        ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY`);
    await q.query(`CREATE INDEX outbox_events_game_feed ON outbox_events (game_id, xid, seq)`);
    await q.query(`CREATE INDEX outbox_events_group_feed ON outbox_events (group_id, xid, seq) WHERE group_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX outbox_events_group_feed, outbox_events_game_feed');
    await q.query('ALTER TABLE outbox_events DROP COLUMN seq, DROP COLUMN xid');
  }
}
