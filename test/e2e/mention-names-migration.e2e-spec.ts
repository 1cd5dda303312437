import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { MentionNames1765800000000, NAME_INDEXES } from '../../migrations/1765800000000-mention-names';
import { OldMentionsDropped1766700000000 } from '../../migrations/1766700000000-old-mentions-dropped';
import { OldTablesDropped1767900000000 } from '../../migrations/1767900000000-old-tables-dropped';
import { createDataSource, runMigrations } from '../../src/db/data-source';
import { withQueryRunner } from '../helpers/query-runner';
import { createTestDatabase, databaseUrl, type TestDatabase } from '../helpers/test-db';

/**
 * Migration MentionNames: an expand migration whose indexes are built concurrently, outside a
 * transaction. It can run again after any interruption (an invalid index is rebuilt), leaves the
 * previous release's functions and indexes in place, and two instances booting on one database at
 * once both get through it. OldMentionsDropped, of a later release, then removes those.
 */

jest.setTimeout(120_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function indexes(db: TestDatabase): Promise<Record<string, { valid: boolean; oid: number }>> {
  const rows = await db.query<{ name: string; valid: boolean; oid: number }>(
    `SELECT c.relname AS name, i.indisvalid AS valid, c.oid::int AS oid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE c.relname IN ('audit_entries_names', 'outbox_events_names', 'operator_audit_names', 'audit_entries_mentions', 'outbox_events_mentions')`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, { valid: r.valid, oid: r.oid }]));
}

async function functions(db: TestDatabase): Promise<string[]> {
  const rows = await db.query<{ f: string }>(
    `SELECT proname AS f FROM pg_proc WHERE proname IN ('svc_names', 'svc_audit_names', 'svc_mentions', 'svc_audit_mentions') ORDER BY proname`,
  );
  return rows.map((r) => r.f);
}

describe('on a migrated database', () => {
  let db: TestDatabase;
  let ds: DataSource;
  const migration = new MentionNames1765800000000();

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = createDataSource({ url: db.url, poolMax: 2 });
    await ds.initialize();
    // The database as MentionNames left it: the tables OldTablesDropped and what OldMentionsDropped, applied since, removed come back.
    await withRunner(async (q) => {
      await q.startTransaction();
      await new OldTablesDropped1767900000000().down(q);
      await q.commitTransaction();
    });
    await withRunner((q) => new OldMentionsDropped1766700000000().down(q));
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const withRunner = <T>(work: (q: QueryRunner) => Promise<T>) => withQueryRunner(ds, work);

  it('runs outside a transaction, and left the previous functions and indexes beside the new ones (expand)', async () => {
    expect(migration.transaction).toBe(false);
    expect(MIGRATIONS).toContain(MentionNames1765800000000);
    expect(await functions(db)).toEqual(['svc_audit_mentions', 'svc_audit_names', 'svc_mentions', 'svc_names']);
    const found = await indexes(db);
    for (const name of ['audit_entries_names', 'outbox_events_names', 'operator_audit_names', 'audit_entries_mentions', 'outbox_events_mentions']) {
      expect({ name, valid: found[name]?.valid }).toEqual({ name, valid: true });
    }
  });

  it('names every string value and every object key, at any depth; the audit variant adds the actor and target', async () => {
    const [row] = await db.query<{ names: string[]; audit: string[] }>(
      `SELECT svc_names($1::jsonb) AS names, svc_audit_names($2::uuid, 'target-1', $1::jsonb) AS audit`,
      [JSON.stringify({ group: { metadata: { ranks: { eve: 'officer' } } }, list: [{ deep: { bob: 1 } }, 'plain'], n: 3 }), '01a211ce-3cf4-7d2a-9b1e-6c0f4a8d2e57'],
    );
    expect([...row.names].sort()).toEqual(['bob', 'deep', 'eve', 'group', 'list', 'metadata', 'n', 'officer', 'plain', 'ranks'].sort());
    expect(row.audit).toEqual([...row.names, '01a211ce-3cf4-7d2a-9b1e-6c0f4a8d2e57', 'target-1']);
  });

  it('running it again changes nothing: each index is kept as built', async () => {
    const before = await indexes(db);
    await withRunner((q) => migration.up(q));
    expect(await indexes(db)).toEqual(before);
  });

  it('an index left INVALID by an interrupted concurrent build is dropped and built again', async () => {
    await db.query('DROP INDEX audit_entries_names');
    // A transaction with an older snapshot makes the concurrent build wait in its last phase, after
    // the index is in the catalog and before it is valid: cancelled there, it stays INVALID.
    const holder = new Client({ connectionString: db.url });
    const builder = new Client({ connectionString: db.url });
    await Promise.all([holder.connect(), builder.connect()]);
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT 1');
      const [{ pid }] = (await builder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      const building = builder
        .query(`CREATE INDEX CONCURRENTLY audit_entries_names ON audit_entries USING gin (svc_audit_names(actor_user_id, target_id, payload) jsonb_path_ops)`)
        .then(
          () => 'built',
          (err: { code?: string }) => err.code,
        );
      for (let waited = 0; ; waited += 20) {
        const [row] = await db.query<{ waiting: boolean }>(`SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1`, [pid]);
        if (row?.waiting) break;
        if (waited > 10_000) throw new Error('the concurrent build never waited');
        await sleep(20);
      }
      await db.query('SELECT pg_cancel_backend($1)', [pid]);
      expect(await building).toBe('57014');
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await Promise.all([holder.end(), builder.end()]);
    }
    expect((await indexes(db)).audit_entries_names).toEqual({ valid: false, oid: expect.any(Number) });

    await withRunner((q) => migration.up(q));
    expect((await indexes(db)).audit_entries_names).toEqual({ valid: true, oid: expect.any(Number) });
  });

  it('down, in the transaction TypeORM gives it, removes only what it added; up brings it back', async () => {
    await withRunner(async (q) => {
      await q.startTransaction();
      await migration.down(q);
      await q.commitTransaction();
    });
    expect(await functions(db)).toEqual(['svc_audit_mentions', 'svc_mentions']);
    expect(Object.keys(await indexes(db)).sort()).toEqual(['audit_entries_mentions', 'outbox_events_mentions']);
    await withRunner((q) => migration.up(q));
    expect(await functions(db)).toEqual(['svc_audit_mentions', 'svc_audit_names', 'svc_mentions', 'svc_names']);
    const found = await indexes(db);
    for (const { name } of NAME_INDEXES) expect({ name, valid: found[name]?.valid }).toEqual({ name, valid: true });
  });

  it('OldMentionsDropped, of release 1.1.0, removes the first indexes and functions only, concurrently, and can run again; its down brings them back', async () => {
    const dropped = new OldMentionsDropped1766700000000();
    expect(dropped.transaction).toBe(false);
    expect(dropped.release).toEqual({ version: '1.1.0', kind: 'expand' });
    for (let run = 0; run < 2; run++) {
      await withRunner((q) => dropped.up(q));
      expect(await functions(db)).toEqual(['svc_audit_names', 'svc_names']);
      expect(Object.keys(await indexes(db)).sort()).toEqual(['audit_entries_names', 'operator_audit_names', 'outbox_events_names']);
    }
    await withRunner((q) => dropped.down(q));
    expect(await functions(db)).toEqual(['svc_audit_mentions', 'svc_audit_names', 'svc_mentions', 'svc_names']);
    const found = await indexes(db);
    expect({ audit: found.audit_entries_mentions?.valid, events: found.outbox_events_mentions?.valid }).toEqual({ audit: true, events: true });
    await withRunner((q) => dropped.up(q));
  });
});

describe('on an empty database', () => {
  let name: string;
  let serverUrl: string;
  const sources: DataSource[] = [];

  beforeAll(async () => {
    serverUrl = process.env.GH_TEST_SERVER_URL!;
    const template = process.env.GH_TEST_TEMPLATE!;
    name = `gh_t_${template.split('_')[2]}_empty_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
  });
  afterAll(async () => {
    // First: a migration that never finished would keep its pool from closing.
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    for (const ds of sources) if (ds.isInitialized) await ds.destroy().catch(() => undefined);
  });

  it('two instances migrating at once both finish: the one waiting its turn holds up no concurrent index build', async () => {
    const url = databaseUrl(serverUrl, name);
    for (let i = 0; i < 2; i++) {
      const ds = createDataSource({ url, poolMax: 2 });
      await ds.initialize();
      sources.push(ds);
    }
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), 60_000)));
    const outcome = await Promise.race([Promise.all(sources.map((ds) => runMigrations(ds))).then(() => 'done' as const), stuck]);
    clearTimeout(timer);
    expect(outcome).toBe('done');
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      const applied = await c.query<{ name: string; n: number }>('SELECT name, count(*)::int AS n FROM schema_migrations GROUP BY name');
      expect(applied.rows).toHaveLength(MIGRATIONS.length);
      expect(applied.rows.every((r) => r.n === 1)).toBe(true);
      const invalid = await c.query(`SELECT 1 FROM pg_index WHERE NOT indisvalid`);
      expect(invalid.rows).toEqual([]);
    } finally {
      await c.end();
    }
  });
});
