import type { QueryRunner } from 'typeorm';
import { createIndexConcurrently, dropIndex, restoreIndex, type IndexDefinition } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * One index where two were (docs/design/write-path.md, step 5b): members_group_order (a group's
 * members newest first) and members_group_spans (the analytics' membership spans) both begin with
 * group_id, and every member write that is not HOT (a join, a leave, a kick: status is indexed)
 * paid an entry in each. members_group_joined keeps the order of the first and carries the span
 * columns of the second, so a member write pays one entry fewer, the member list walks it as it
 * walked members_group_order, and the analytics still read spans index-only.
 *
 * Marked expand, though it removes: no release names either index; the previous release's queries
 * are planned on the new one exactly as on the old (the same leading columns in the same order).
 * The new index is built before the old ones go, each step concurrently: writes go on throughout.
 * The down builds the two again and drops the new one.
 */
export class MemberSpansInOrder1767500000000 implements ReleasedMigration {
  name = 'MemberSpansInOrder1767500000000';
  readonly release = expandIn('1.5.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await createIndexConcurrently(q, GROUP_JOINED);
    for (const { name } of REPLACED) await dropIndex(q, name);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const index of REPLACED) await restoreIndex(q, index);
    await dropIndex(q, GROUP_JOINED.name);
  }
}

const GROUP_JOINED: IndexDefinition = { name: 'members_group_joined', table: 'members', definition: '(group_id, joined_at DESC, id DESC) INCLUDE (status, left_at)' };

const REPLACED: readonly IndexDefinition[] = [
  { name: 'members_group_order', table: 'members', definition: '(group_id, joined_at DESC, id DESC)' },
  { name: 'members_group_spans', table: 'members', definition: '(group_id) INCLUDE (status, joined_at, left_at)' },
];
