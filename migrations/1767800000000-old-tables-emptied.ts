import type { QueryRunner } from 'typeorm';
import { createTrigger, TRIGGERS } from './1767200000000-journal';
import { backfillInBatches, lockedStatement } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * The old tables emptied (docs/design/write-path.md section 4, N+3): audit_entries and outbox_events
 * hold the history that releases before 1.4.0 wrote, every row of which the journal holds too since
 * JournalHistory1767300000000. Release 1.6.0 reads and writes them no more (its erasure, a group's
 * removal and the sweep act on the journal alone), so their rows only cost storage and every
 * erasure's rewrite of them.
 *
 * Their UPDATE and DELETE triggers go first: they apply a rewrite or a removal to the row's journal
 * copy, so the batched delete below would otherwise strip each copy's audit part or expire its
 * event. Dropping them is safe beside 1.5.0, whose erasure, group purge and sweep rewrite the journal
 * directly (the triggers only repeated that work), and whose statements on the old tables find
 * nothing to do once they are empty. The INSERT triggers stay with the tables, which the release
 * after 1.6.0 drops: no release that may run writes the tables.
 *
 * The down puts the triggers back (their functions stay); the rows do not come back, nor need to:
 * 1.5.0 answers everything from the journal.
 */
export class OldTablesEmptied1767800000000 implements ReleasedMigration {
  name = 'OldTablesEmptied1767800000000';
  readonly release = expandIn('1.6.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (const trigger of TRIGGERS) await lockedStatement(q, `DROP TRIGGER IF EXISTS ${trigger.name} ON ${trigger.table}`);
    for (const batch of EMPTYING_BATCHES) await backfillInBatches(q, { batch });
  }

  async down(q: QueryRunner): Promise<void> {
    for (const trigger of TRIGGERS) await createTrigger(q, trigger);
  }
}

/**
 * One batch of the delete of each table, in key order after $1 (null first), $2 rows
 * (backfillInBatches' form); the last key is read as text (PostgreSQL 15 has no max(uuid)).
 */
export const EMPTYING_BATCHES = [
  { table: 'audit_entries', key: 'uuid' },
  { table: 'outbox_events', key: 'bpchar' },
].map(
  ({ table, key }) => `WITH doomed AS (
       SELECT id FROM ${table} WHERE $1::text IS NULL OR id > $1::text::${key} ORDER BY id LIMIT $2 FOR UPDATE
     ), gone AS (
       DELETE FROM ${table} t USING doomed d WHERE t.id = d.id
     )
     SELECT (SELECT id FROM doomed ORDER BY id DESC LIMIT 1)::text AS last`,
);
