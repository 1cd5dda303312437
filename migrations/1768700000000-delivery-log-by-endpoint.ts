import type { QueryRunner } from 'typeorm';
import { createIndexConcurrently, dropIndex, restoreIndex } from './online';
import { expandIn, type ReleasedMigration } from './release';

const COLUMNS = '(endpoint_id, status, created_at DESC, id DESC)';

/**
 * The delivery log's index is partial, over every row (`endpoint_id` is never null), so that only
 * a statement naming an endpoint may read it. Its readers all do: the log's pages, the retention
 * sweep and the endpoint's cascade, whose `endpoint_id = ...` implies the predicate.
 *
 * Why: a statement that looks a delivery up by id (the worker's claim asks it of every event it
 * reads, `hasRowSql`) could be served by this index too, read whole with the id as a filter. A
 * generic plan made while the table was empty costs both ways the same and may take that one; the
 * worker's connections keep it as the table grows. Measured under the bench's writes: each probe
 * read 400-700 index pages, and the claim took 40-170 ms a call, most of PostgreSQL's CPU in every
 * write row. Partial, the index cannot serve a lookup by id, which is left to the primary key.
 *
 * Online (docs/operations.md, Schema changes): built, and the old one dropped, CONCURRENTLY,
 * outside a transaction. Every release may run after it: each of its reads names the endpoint.
 */
export class DeliveryLogByEndpoint1768700000000 implements ReleasedMigration {
  name = 'DeliveryLogByEndpoint1768700000000';
  readonly release = expandIn('1.13.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await createIndexConcurrently(q, { name: 'webhook_deliveries_endpoint_log', table: 'webhook_deliveries', definition: `${COLUMNS} WHERE endpoint_id IS NOT NULL` });
    await dropIndex(q, 'webhook_deliveries_log');
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreIndex(q, { name: 'webhook_deliveries_log', table: 'webhook_deliveries', definition: COLUMNS });
    await dropIndex(q, 'webhook_deliveries_endpoint_log');
  }
}
