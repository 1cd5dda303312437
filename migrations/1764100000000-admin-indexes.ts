import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexConcurrently, type IndexDefinition } from './online';

/**
 * Indexes the operator analytics need (issue 7), and only those; measured with
 * bench/analytics.mjs on one game of 10 000 groups and 1 000 000 members.
 *
 * Online (docs/operations.md, Schema changes): built CONCURRENTLY, so the member writes of the
 * release still serving go on while it reads members; outside a transaction (`transaction =
 * false`), and built again if an earlier run left it INVALID. Every release may run after it.
 */
export class AdminIndexes1764100000000 implements MigrationInterface {
  name = 'AdminIndexes1764100000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    // Group growth reads every membership span of a game's groups: with the span columns in the
    // index that is an index-only scan of the game's groups alone, never the heap or other games'
    // rows (575 ms -> 390 ms on the bench). Churn reads the same columns. The cost is one more
    // index entry per member row; the status changes that move left_at already update
    // members_group_status_order, so they were never HOT updates anyway.
    await createIndexConcurrently(q, GROUP_SPANS);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX members_group_spans');
  }
}

const GROUP_SPANS: IndexDefinition = { name: 'members_group_spans', table: 'members', definition: '(group_id) INCLUDE (status, joined_at, left_at)' };
