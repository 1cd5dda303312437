import type { QueryRunner } from 'typeorm';
import { expandIn, type ReleasedMigration } from './release';

/**
 * The names a journal row's `names` may leave out (docs/design/write-path.md, step 5c): strings
 * that nearly every change holds (the field names of the service's documents, its types and
 * statuses), whose entries cost most of the GIN index of names while no search needs them, unless
 * a player's id happens to be one of them. A row here says that writers may leave `name` out of a
 * row's names; an erasure or an export of a player with such an id then finds the changes naming
 * them without the index (src/users/unindexed-names.ts). It is in the database, not in a build, so
 * that a release which leaves out more words adds them here (a migration) before its writers do,
 * and every reader of this release on already consults them.
 *
 * Empty in 1.5.0, whose writers still leave nothing out. Expand: a new table the previous release
 * neither reads nor writes.
 */
export class UnindexedNames1767600000000 implements ReleasedMigration {
  name = 'UnindexedNames1767600000000';
  readonly release = expandIn('1.5.0');

  async up(q: QueryRunner): Promise<void> {
    // Read by hash (the ids' hashes, as svc_name_hash gives them); a few hundred rows at most.
    await q.query(`
      CREATE TABLE IF NOT EXISTS journal_unindexed_names (
        name  text PRIMARY KEY,
        hash  integer NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS journal_unindexed_names');
  }
}
