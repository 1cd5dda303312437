import type { DataSource } from 'typeorm';
import { downsInTransaction } from '../../migrations/release';
import { requireMigratedSchema, runMigrations, SchemaIncompatible, withMigrationLock } from '../db/data-source';
import { blockingMigrations, KNOWN_MIGRATIONS, readSchemaState, type KnownMigration, type SchemaState } from '../db/schema/schema-state';
import { RELEASE } from '../version';

export type MigrateCommand = { name: 'migrate:status' } | { name: 'migrate:up' } | { name: 'migrate:down'; to: string };

/** What `migrate status` prints: each migration of this build and of newer releases, then what to do. */
export function describeSchema(state: SchemaState): string {
  const width = Math.max(...KNOWN_MIGRATIONS.map((k) => k.name.length), ...state.foreign.map((f) => f.name.length));
  const line = (status: string, name: string, release: string, kind: string, note = '') =>
    `${status.padEnd(8)} ${name.padEnd(width)}  ${release.padEnd(7)} ${kind.padEnd(8)}${note ? ` ${note}` : ''}`.trimEnd();
  const blocking = new Set(blockingMigrations(state).map((f) => f.name));
  const lines = [
    `this build: release ${RELEASE}`,
    ...KNOWN_MIGRATIONS.map((k) => line(state.applied.has(k.name) ? 'applied' : 'pending', k.name, k.release.version, k.release.kind)),
    ...state.foreign.map((f) =>
      line('newer', f.name, f.release ?? '?', f.kind ?? '?', blocking.has(f.name) ? `(needs release ${f.oldest ?? 'unknown'} or later: this build may not run)` : `(this build may run beside it)`),
    ),
  ];
  const verdict = blocking.size
    ? `this build may not run on the database: ${blocking.size} migration(s) of a newer release need a newer build`
    : state.pending.length
      ? `${state.pending.length} pending: apply them with \`guildhall migrate up\` before starting this build with MIGRATE_ON_BOOT=false`
      : 'up to date: this build may run on the database';
  return [...lines, verdict].join('\n');
}

/** Runs a migrate command on the database; answers what it prints. A refusal throws, with its one line. */
export async function runMigrateCommand(ds: DataSource, command: MigrateCommand): Promise<string> {
  switch (command.name) {
    case 'migrate:status':
      return describeSchema(await readSchemaState(ds.manager));
    case 'migrate:up': {
      const applied = await runMigrations(ds);
      await requireMigratedSchema(ds);
      return applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'nothing to apply: the database has every migration of this build';
    }
    case 'migrate:down':
      return revertTo(ds, command.to);
  }
}

/**
 * Reverts, newest first, every migration applied after `to` (which stays), each with its own
 * `down`. Refuses, changing nothing, when one of them is not this build's (a newer release's: that
 * release reverts its own) or is a contract migration (what it removed cannot be brought back:
 * restore from a backup instead).
 */
async function revertTo(ds: DataSource, to: string): Promise<string> {
  return withMigrationLock(ds, async (runner) => {
    const rows = (await runner.query('SELECT name FROM schema_migrations ORDER BY id')) as { name: string }[];
    const at = rows.findIndex((r) => r.name === to);
    if (at < 0) throw new SchemaIncompatible(`${to} is not an applied migration: \`guildhall migrate status\` lists them`);
    const later = rows.slice(at + 1).map((r) => r.name).reverse();
    const refusal = revertRefusal(later);
    if (refusal) throw new SchemaIncompatible(refusal);
    const hasReleases = async () => ((await runner.query(`SELECT to_regclass('schema_releases') IS NOT NULL AS present`)) as { present: boolean }[])[0].present;
    for (const name of later) {
      // TypeORM reverts the last applied migration, which `later` names in the same order.
      const migration = ds.migrations.find((m) => m.name === name);
      await ds.undoLastMigration({ transaction: downsInTransaction(migration) ? 'each' : 'none' });
      if (await hasReleases()) await runner.query('DELETE FROM schema_releases WHERE name = $1', [name]);
    }
    return later.length ? `reverted ${later.length} migration(s), newest first: ${later.join(', ')}` : `nothing to revert: ${to} is the last applied migration`;
  });
}

/** Why the migrations `later` (newest first) may not be reverted by this build, or null. */
export function revertRefusal(later: readonly string[], known: readonly KnownMigration[] = KNOWN_MIGRATIONS): string | null {
  const byName = new Map(known.map((k) => [k.name, k]));
  for (const name of later) {
    const k = byName.get(name);
    if (!k) return `${name} was applied by a newer release: revert it with that release's \`guildhall migrate down\` first`;
    if (k.release.kind === 'contract') {
      return `${name} is a contract migration of release ${k.release.version}: reverting it cannot bring back what it removed; restore a backup taken before it instead`;
    }
  }
  return null;
}
