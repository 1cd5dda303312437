import type { QueryRunner } from 'typeorm';
import { createIndexConcurrently, dropIndex } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * The operator log's entries of a user are found by a hash of the id, no longer by the id itself.
 * A user id may be up to 16,384 characters, but a b-tree entry holds about 2,700 bytes: under
 * `operator_audit_by_target (game_id, target_id)` an admin action on a longer id (a ban, a kick,
 * an export) could not record its entry, and the whole action failed. A hash index keeps four
 * bytes an entry whatever the id's length, and answers the one question asked of it: the entries
 * whose target is one of a user's ids (the erasure's `target_id IN (...)`, within a game).
 *
 * Online (docs/operations.md, Schema changes): built and dropped CONCURRENTLY, outside a
 * transaction. Every release may run after it: the only reader of the old index, the erasure, asks
 * the same equality of the new one.
 *
 * The down leaves the hash index as it is and builds no b-tree: the release before reads through
 * either, and a b-tree on the ids would refuse the entries of long ids that this release records,
 * so putting it back could fail, or make the admin actions on those ids fail again.
 */
export class OperatorAuditTargetHashed1768600000000 implements ReleasedMigration {
  name = 'OperatorAuditTargetHashed1768600000000';
  readonly release = expandIn('1.13.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await createIndexConcurrently(q, { name: 'operator_audit_by_target_hash', table: 'operator_audit', definition: 'USING hash (target_id)' });
    await dropIndex(q, 'operator_audit_by_target');
  }

  async down(): Promise<void> {
    // Nothing to undo (see above): both releases want the hash index.
  }
}
