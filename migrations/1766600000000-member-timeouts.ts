import type { QueryRunner } from 'typeorm';
import { createIndexConcurrently, dropIndex, lockedStatement, type IndexDefinition } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * Member timeouts (EXTENSIONS X10): `timed_out_until` on a member row, null when no timeout was
 * set or the last one was lifted; a value in the past is a timeout that ended and waits for the
 * sweeper to write its `member.timeout_lifted`.
 *
 * Expand: one nullable column without a default (a catalog change under a short lock_timeout,
 * retried, see migrations/online.ts) and a partial index, built concurrently, through which the
 * sweeper finds the timeouts that are due. The previous release never names the column: beside
 * it a timeout denies nothing, and the first sweep of this release lifts those that ended.
 */
export class MemberTimeouts1766600000000 implements ReleasedMigration {
  name = 'MemberTimeouts1766600000000';
  readonly release = expandIn('1.1.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedStatement(q, 'ALTER TABLE members ADD COLUMN IF NOT EXISTS timed_out_until timestamptz(3)');
    await createIndexConcurrently(q, TIMEOUT_INDEX);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndex(q, TIMEOUT_INDEX.name);
    await lockedStatement(q, 'ALTER TABLE members DROP COLUMN IF EXISTS timed_out_until');
  }
}

/** Only members with a timeout are indexed: the sweep's `timed_out_until <= now()` reads no other. */
const TIMEOUT_INDEX: IndexDefinition = { name: 'members_timeout_due', table: 'members', definition: '(timed_out_until) WHERE timed_out_until IS NOT NULL' };
