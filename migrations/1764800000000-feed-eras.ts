import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexConcurrently, dropIndex, lockedStatement, lockedTransaction, type IndexDefinition } from './online';

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
 *
 * Online (docs/operations.md, Schema changes): the column is a catalog change (a constant default),
 * made with a short lock_timeout and tried again when a long transaction holds outbox_events. The
 * two feed indexes gain era without blocking the events the release still serving writes: each new
 * one is built CONCURRENTLY under a name of its own, the old one dropped CONCURRENTLY, and the new
 * one renamed to the old name. Outside a transaction (`transaction = false`); every step can run
 * again (an index that already leads with era is done). The schema is the one the first form
 * (drop, then plain builds, in one transaction) left. The builds before it write events without an
 * era (the default gives 1) and read the feed by (xid, seq), through the new indexes with a sort:
 * every release may run after it.
 */
export class FeedEras1764800000000 implements MigrationInterface {
  name = 'FeedEras1764800000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      await q.query(`
        CREATE TABLE IF NOT EXISTS feed_state (
          singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
          era integer NOT NULL
        )`);
      await q.query(`INSERT INTO feed_state (era) VALUES (1) ON CONFLICT DO NOTHING`);
    });
    await lockedStatement(q, `ALTER TABLE outbox_events ADD COLUMN IF NOT EXISTS era integer NOT NULL DEFAULT 1`);
    for (const index of FEED_INDEXES) await replaceIndex(q, index);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX outbox_events_game_feed, outbox_events_group_feed');
    await q.query(`CREATE INDEX outbox_events_game_feed ON outbox_events (game_id, xid, seq)`);
    await q.query(`CREATE INDEX outbox_events_group_feed ON outbox_events (group_id, xid, seq) WHERE group_id IS NOT NULL`);
    await q.query('ALTER TABLE outbox_events DROP COLUMN era');
    await q.query('DROP TABLE feed_state');
  }
}

const FEED_INDEXES: readonly IndexDefinition[] = [
  { name: 'outbox_events_game_feed', table: 'outbox_events', definition: '(game_id, era, xid, seq)' },
  { name: 'outbox_events_group_feed', table: 'outbox_events', definition: '(group_id, era, xid, seq) WHERE group_id IS NOT NULL' },
];

/** The index under its name with its new definition, built beside the old one, which goes once the new one is valid. */
async function replaceIndex(q: QueryRunner, index: IndexDefinition): Promise<void> {
  const [current] = (await q.query(`SELECT pg_get_indexdef(to_regclass($1)) AS def`, [index.name])) as { def: string | null }[];
  if (current.def?.includes('(game_id, era,') || current.def?.includes('(group_id, era,')) return;
  const next = `${index.name}_eras`;
  await createIndexConcurrently(q, { ...index, name: next });
  await dropIndex(q, index.name);
  await lockedStatement(q, `ALTER INDEX ${next} RENAME TO ${index.name}`);
}
