import type { MigrationInterface } from 'typeorm';

/**
 * What a migration is to the releases around it (docs/upgrades.md):
 * - `expand`: it only adds (a table, a nullable column, an index, a trigger that fills a new column
 *   for writers that do not know it). The previous release still runs on the schema it leaves, so a
 *   rolling upgrade may run both side by side, and a rollback is just running the previous release.
 * - `contract`: it removes or tightens what the previous release still uses. Only its own release
 *   and later may run after it; it ships in the release after the one that stopped using what it removes.
 */
export type MigrationKind = 'expand' | 'contract';

export interface MigrationRelease {
  /** The release that brings the migration. */
  version: string;
  kind: MigrationKind;
}

/** Every release, oldest first: the one before a migration's release is the oldest an expand migration lets run. */
export const RELEASES = ['0.0.0', '1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0', '1.6.0', '1.7.0', '1.8.0', '1.9.0', '1.10.0', '1.11.0', '1.12.0', '1.13.0'] as const;

/** A migration that says what it is to the releases; every migration from release 1.0.0 on does. */
export interface ReleasedMigration extends MigrationInterface {
  readonly release: MigrationRelease;
}

export const expandIn = (version: (typeof RELEASES)[number]): MigrationRelease => ({ version, kind: 'expand' });
export const contractIn = (version: (typeof RELEASES)[number]): MigrationRelease => ({ version, kind: 'contract' });

/** The migrations of the releases before 1.0.0 say nothing: they are the schema of release 0.0.0. */
const BEFORE_RELEASES: MigrationRelease = { version: '0.0.0', kind: 'expand' };

export function releaseOf(migration: MigrationInterface): MigrationRelease {
  return (migration as Partial<ReleasedMigration>).release ?? BEFORE_RELEASES;
}

/** The oldest release that may run on a database with `r` applied: the previous release for an expand migration, its own for a contract. */
export function oldestReleaseFor(r: MigrationRelease): string {
  if (r.kind === 'contract') return r.version;
  const at = RELEASES.indexOf(r.version as (typeof RELEASES)[number]);
  if (at < 0) throw new Error(`release ${r.version} is not listed in migrations/release.ts`);
  return RELEASES[Math.max(0, at - 1)];
}

/**
 * Whether `migrate down` runs a migration's down in a transaction (TypeORM's undo would wrap every
 * down in one, whatever the migration says). In one, a down can neither build an index
 * concurrently, nor commit a backfill in batches, nor let go of a lock it waited too long for and
 * try again, so a rollback under traffic would hold writes behind it or fail at the first lock
 * timeout. A migration of release 1.0.0 or later that runs outside a transaction (`transaction =
 * false`) has its down, written with the same helpers (migrations/online.ts), run so too; the downs
 * of release 0.0.0 are plain statements that count on committing together.
 */
export function downsInTransaction(migration: MigrationInterface | undefined): boolean {
  if (!migration || migration.transaction !== false) return true;
  return releaseOf(migration).version === RELEASES[0];
}
