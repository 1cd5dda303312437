import type { EntityManager } from 'typeorm';
import { MIGRATIONS } from '../../../migrations';
import { oldestReleaseFor, releaseOf, type MigrationRelease } from '../../../migrations/release';
import { compareReleases, RELEASE } from '../../version';

/** A migration this build knows, in the order it applies them. */
export interface KnownMigration {
  name: string;
  release: MigrationRelease;
  oldest: string;
}

export const KNOWN_MIGRATIONS: readonly KnownMigration[] = MIGRATIONS.map((M) => {
  const m = new M();
  const release = releaseOf(m);
  return { name: m.name ?? M.name, release, oldest: oldestReleaseFor(release) };
});

/** A migration applied to the database that this build does not know: a newer release applied it. */
export interface ForeignMigration {
  name: string;
  /** What that release recorded of it; null when it recorded nothing (it could not say, so no older build may run). */
  release: string | null;
  kind: string | null;
  oldest: string | null;
}

export interface SchemaState {
  /** The known migrations that are applied. */
  applied: ReadonlySet<string>;
  /** The known migrations not yet applied, in order. */
  pending: KnownMigration[];
  foreign: ForeignMigration[];
}

const exists = async (m: EntityManager, table: string) =>
  ((await m.query('SELECT to_regclass($1) IS NOT NULL AS present', [table])) as { present: boolean }[])[0].present;

/** Reads which migrations the database has, against this build's. A database with none yet has every one pending. */
export async function readSchemaState(m: EntityManager): Promise<SchemaState> {
  const rows: { name: string }[] = (await exists(m, 'schema_migrations')) ? await m.query('SELECT name FROM schema_migrations ORDER BY id') : [];
  const recorded = new Map<string, { release: string; kind: string; oldest_release: string }>();
  if (await exists(m, 'schema_releases')) {
    for (const r of (await m.query('SELECT name, release, kind, oldest_release FROM schema_releases')) as { name: string; release: string; kind: string; oldest_release: string }[]) {
      recorded.set(r.name, r);
    }
  }
  const known = new Set(KNOWN_MIGRATIONS.map((k) => k.name));
  const applied = new Set<string>();
  const foreign: ForeignMigration[] = [];
  for (const row of rows) {
    if (known.has(row.name)) {
      applied.add(row.name);
      continue;
    }
    const r = recorded.get(row.name);
    foreign.push({ name: row.name, release: r?.release ?? null, kind: r?.kind ?? null, oldest: r?.oldest_release ?? null });
  }
  return { applied, pending: KNOWN_MIGRATIONS.filter((k) => !applied.has(k.name)), foreign };
}

/** The foreign migrations this build may not run beside: unrecorded, or recorded with an oldest release above this build's. */
export function blockingMigrations(state: SchemaState, build = RELEASE): ForeignMigration[] {
  return state.foreign.filter((f) => f.oldest === null || compareReleases(build, f.oldest) < 0);
}

/** The one line that says why this build may not run on the database, naming both releases. */
export function incompatibility(blocking: readonly ForeignMigration[], build = RELEASE): string {
  const f = blocking[blocking.length - 1];
  const what = f.release ? `migration ${f.name} of release ${f.release} (${f.kind}), which needs release ${f.oldest} or later` : `migration ${f.name}, which no release recorded as safe for older ones`;
  return `the database has ${what}; this build is release ${build}: run release ${f.oldest ?? 'that applied it'} or later, or have that release roll the schema back (guildhall migrate down)`;
}

/** Writes what this build knows of every applied migration it knows, once per migration (any build may write it first). */
export async function recordReleases(m: EntityManager, applied: Iterable<string>): Promise<void> {
  const names = new Set(applied);
  const rows = KNOWN_MIGRATIONS.filter((k) => names.has(k.name));
  if (!rows.length || !(await exists(m, 'schema_releases'))) return;
  await m.query(
    `INSERT INTO schema_releases (name, release, kind, oldest_release)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
     ON CONFLICT (name) DO NOTHING`,
    [rows.map((r) => r.name), rows.map((r) => r.release.version), rows.map((r) => r.release.kind), rows.map((r) => r.oldest)],
  );
}
