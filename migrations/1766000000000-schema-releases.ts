import type { QueryRunner } from 'typeorm';
import { expandIn, type ReleasedMigration } from './release';

/**
 * What each applied migration is to the releases (docs/upgrades.md): the release that brought it,
 * expand or contract, and the oldest release that may run on a database that has it. A build that
 * finds a migration it does not know (applied by a newer release) reads here whether it may run:
 * at boot it refuses to start when it may not, and a running instance stops taking writes.
 * Written by every build after it migrates, for every migration it knows that is applied.
 *
 * Expand: a new table the previous release neither reads nor writes.
 */
export class SchemaReleases1766000000000 implements ReleasedMigration {
  name = 'SchemaReleases1766000000000';
  readonly release = expandIn('1.0.0');

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS schema_releases (
        name            text PRIMARY KEY,
        release         text NOT NULL,
        kind            text NOT NULL CHECK (kind IN ('expand', 'contract')),
        oldest_release  text NOT NULL,
        recorded_at     timestamptz(3) NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS schema_releases');
  }
}
