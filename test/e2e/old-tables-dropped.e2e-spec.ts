import { randomUUID } from 'node:crypto';
import { DataSource, type QueryRunner } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { TRIGGERS } from '../../migrations/1767200000000-journal';
import { INSERT_TRIGGERS } from '../../migrations/1767300000000-journal-history';
import { OldTablesDropped1767900000000 } from '../../migrations/1767900000000-old-tables-dropped';
import { OldTablesEmptied1767800000000 } from '../../migrations/1767800000000-old-tables-emptied';
import { oldestReleaseFor } from '../../migrations/release';
import { onFreshDatabase, withQueryRunner } from '../helpers/query-runner';
import { createEmptyDatabase } from '../helpers/test-db';

/**
 * OldTablesDropped1767900000000 (docs/design/write-path.md section 4, N+4): audit_entries and
 * outbox_events, empty since 1.6.0, go with every function of their triggers; the down makes them
 * again, empty, exactly as 1.6.0 has them.
 */

jest.setTimeout(120_000);

const migration = new OldTablesDropped1767900000000();
/** The functions of the old tables' triggers: the insert triggers' and the update and delete triggers'. */
const FUNCTIONS = [...INSERT_TRIGGERS, ...TRIGGERS].map((t) => t.name).sort();

/** What the catalogue says of the two tables and their trigger functions: columns, indexes, constraints, triggers, function bodies. */
async function catalogue(q: QueryRunner): Promise<unknown> {
  const rows = (sql: string) => q.query(sql) as Promise<unknown[]>;
  return {
    columns: await rows(
      `SELECT table_name, column_name, data_type, datetime_precision, is_nullable, column_default, is_identity, identity_generation
       FROM information_schema.columns WHERE table_name IN ('audit_entries', 'outbox_events') ORDER BY table_name, ordinal_position`,
    ),
    indexes: await rows(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('audit_entries', 'outbox_events') ORDER BY indexname`),
    constraints: await rows(
      `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE conrelid IN (SELECT oid FROM pg_class WHERE relname IN ('audit_entries', 'outbox_events')) ORDER BY conname`,
    ),
    triggers: await rows(
      `SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger
       WHERE tgrelid IN (SELECT oid FROM pg_class WHERE relname IN ('audit_entries', 'outbox_events')) AND NOT tgisinternal ORDER BY tgname`,
    ),
    functions: await rows(`SELECT proname, prosrc FROM pg_proc WHERE proname LIKE 'svc_journal_%ed' ORDER BY proname`),
  };
}

/** The catalogue of a database migrated as release 1.6.0 left it: every migration but this one. */
async function asReleased(): Promise<unknown> {
  const db = await createEmptyDatabase();
  const ds = new DataSource({
    type: 'postgres',
    url: db.url,
    migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(OldTablesDropped1767900000000)),
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    logging: false,
  });
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
    return await withQueryRunner(ds, catalogue);
  } finally {
    await ds.destroy();
    await db.drop();
  }
}

describe('OldTablesDropped1767900000000', () => {
  it('is an expand of 1.7.0 that lets 1.6.0 run beside it, outside a transaction', () => {
    expect(migration.release).toEqual({ version: '1.7.0', kind: 'expand' });
    expect(oldestReleaseFor(migration.release)).toBe('1.6.0');
    expect(migration.transaction).toBe(false);
    expect(MIGRATIONS.indexOf(OldTablesDropped1767900000000)).toBe(MIGRATIONS.indexOf(OldTablesEmptied1767800000000) + 1);
  });

  it('leaves neither table nor trigger function; its down makes both tables as 1.6.0 has them, empty; up again drops them', async () => {
    const released = await asReleased();
    await onFreshDatabase(async (q) => {
      const [tables] = (await q.query(`SELECT to_regclass('audit_entries') AS a, to_regclass('outbox_events') AS o`)) as { a: unknown; o: unknown }[];
      expect(tables).toEqual({ a: null, o: null });
      expect(await catalogue(q)).toEqual({ columns: [], indexes: [], constraints: [], triggers: [], functions: [] });

      await q.startTransaction();
      await migration.down(q);
      await q.commitTransaction();
      expect(await catalogue(q)).toEqual(released);
      expect(((released as { functions: { proname: string }[] }).functions).map((f) => f.proname)).toEqual(FUNCTIONS);

      // As 1.6.0 rolls back further: OldTablesEmptied's down puts the other triggers back, and a write
      // of release 1.3.0 into the old tables reaches the journal.
      await new OldTablesEmptied1767800000000().down(q);
      const gameId = randomUUID();
      await q.query(`INSERT INTO games (id, name) VALUES ($1, 'old history')`, [gameId]);
      const id = randomUUID();
      await q.query(`INSERT INTO audit_entries (id, game_id, action, target_id) VALUES ($1, $2, 'member.left', 'p1')`, [id, gameId]);
      expect(await q.query(`SELECT action, target_id FROM journal WHERE id = $1`, [id])).toEqual([{ action: 'member.left', target_id: 'p1' }]);
      // Forward again: 1.6.0 empties the tables (the journal keeps the row), this drops them.
      await new OldTablesEmptied1767800000000().up(q);
      await migration.up(q);
      await migration.up(q);
      expect(await catalogue(q)).toEqual({ columns: [], indexes: [], constraints: [], triggers: [], functions: [] });
      expect(await q.query(`SELECT action FROM journal WHERE id = $1`, [id])).toEqual([{ action: 'member.left' }]);
    });
  });
});
