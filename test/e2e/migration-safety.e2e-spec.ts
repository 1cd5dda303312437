import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { Erasure1765100000000 } from '../../migrations/1765100000000-erasure';
import { InvitationInbox1765050000000 } from '../../migrations/1765050000000-invitation-inbox';
import { LOCK_TIMEOUT, lockedStatement } from '../../migrations/online';
import { withQueryRunner } from '../helpers/query-runner';
import { FIRST_FORMS } from '../helpers/first-forms';
import { databaseUrl } from '../helpers/test-db';

/**
 * Migrations stay online (docs/operations.md, Schema changes): while one runs, the previous
 * release keeps writing without failing or waiting long, and the reworked forms leave the schema
 * their first forms left. Each scenario also runs the first form where it fails, so that the test
 * is seen to tell them apart.
 */

jest.setTimeout(180_000);

type MigrationClass = new () => MigrationInterface;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nameOf = (M: MigrationClass) => new M().name as string;
const upTo = (M: MigrationClass) => MIGRATIONS.slice(0, MIGRATIONS.indexOf(M as (typeof MIGRATIONS)[number]));
const firstForm = (M: MigrationClass): MigrationClass => {
  const first = FIRST_FORMS[nameOf(M)];
  if (!first) throw new Error(`no first form of ${nameOf(M)}`);
  return first;
};
const sqlState = (err: unknown) => (err as { code?: string; driverError?: { code?: string } }).code ?? (err as { driverError?: { code?: string } }).driverError?.code;

interface Scratch {
  url: string;
  client: Client;
  drop(): Promise<void>;
}

/** An empty database of its own; its name carries the run's pid, so the run's teardown drops it if the test cannot. */
async function scratchDatabase(): Promise<Scratch> {
  const serverUrl = process.env.GH_TEST_SERVER_URL;
  const template = process.env.GH_TEST_TEMPLATE;
  if (!serverUrl || !template) throw new Error('the test global setup did not run');
  const name = `gh_t_${template.split('_')[2]}_mig_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = databaseUrl(serverUrl, name);
  const client = new Client({ connectionString: url });
  await client.connect();
  return {
    url,
    client,
    drop: async () => {
      await client.end().catch(() => undefined);
      const c = new Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** As the service applies them (src/db/data-source.ts): TypeORM, one transaction per migration unless it says otherwise. */
function dataSource(url: string, migrations: MigrationClass[] = []): DataSource {
  return new DataSource({ type: 'postgres', url, migrations, migrationsTableName: 'schema_migrations', migrationsTransactionMode: 'each', logging: false });
}

async function migrate(url: string, migrations: MigrationClass[]): Promise<void> {
  const ds = dataSource(url, migrations);
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
  } finally {
    await ds.destroy();
  }
}

async function withRunner<T>(url: string, work: (q: QueryRunner) => Promise<T>): Promise<T> {
  const ds = dataSource(url);
  await ds.initialize();
  try {
    return await withQueryRunner(ds, work);
  } finally {
    await ds.destroy();
  }
}

const GAMES = ['0196f2a0-0000-7000-8000-000000000001', '0196f2a0-0000-7000-8000-000000000002'];

/** Two games, 40 groups, and `invitations` invitations as the builds before the inbox wrote them (no game_id). */
async function seedInvitations(c: Client, invitations: number): Promise<string[]> {
  await c.query(`INSERT INTO games (id, name) VALUES ($1, 'Starfall'), ($2, 'Night Watch')`, GAMES);
  await c.query(
    `INSERT INTO groups (id, game_id, kind, name, visibility)
     SELECT gen_random_uuid(), (ARRAY[$1, $2]::uuid[])[1 + n % 2], 'guild', 'Guild ' || n, 'public' FROM generate_series(1, 40) n`,
    GAMES,
  );
  const groups = (await c.query<{ id: string }>('SELECT id FROM groups ORDER BY id')).rows.map((r) => r.id);
  await c.query(
    `INSERT INTO invitations (id, group_id, code, target_user_id)
     SELECT gen_random_uuid(), ($1::uuid[])[1 + n % 40], lpad(to_hex(n), 16, '0'), 'player-' || n FROM generate_series(1, $2::int) n`,
    [groups, invitations],
  );
  return groups;
}

interface Writes {
  /** How long each INSERT took, ms, with when it started. */
  inserts: { at: number; ms: number }[];
  failures: string[];
}

/**
 * A connection of the previous release creating invitations the way its repository did (no
 * game_id), each in a transaction held open a little after the insert, as a request's is, until
 * `stop` says so.
 */
async function previousReleaseWriter(url: string, groups: string[], stop: () => boolean): Promise<Writes> {
  const c = new Client({ connectionString: url });
  await c.connect();
  const writes: Writes = { inserts: [], failures: [] };
  try {
    for (let n = 0; !stop(); n++) {
      try {
        await c.query('BEGIN');
        const at = performance.now();
        await c.query(
          `INSERT INTO invitations AS i (id, group_id, code, role_id, target_user_id, expires_at, max_uses)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (code) DO NOTHING RETURNING i.id`,
          [randomUUID(), groups[n % groups.length], randomBytes(8).toString('hex'), null, `late-${n}`, null, 1],
        );
        writes.inserts.push({ at, ms: performance.now() - at });
        await sleep(10 + (n % 5) * 10);
        await c.query('COMMIT');
      } catch (err) {
        writes.failures.push(sqlState(err) ?? String(err));
        await c.query('ROLLBACK').catch(() => undefined);
        // A writer that only fails has shown what it can: it stops rather than spin.
        if (writes.failures.length >= 50) break;
        await sleep(10);
      }
    }
  } finally {
    await c.end();
  }
  return writes;
}

/** Runs `migration` on the database while two writers of the previous release insert before, during and after it. */
async function migrateUnderWrites(db: Scratch, groups: string[], migrations: MigrationClass[]) {
  let stopped = false;
  const writers = [0, 1].map(() => previousReleaseWriter(db.url, groups, () => stopped));
  let started = 0;
  let ended = 0;
  try {
    await sleep(300);
    started = performance.now();
    await migrate(db.url, migrations);
    ended = performance.now();
    await sleep(300);
  } finally {
    stopped = true;
  }
  const all = await Promise.all(writers);
  const inserts = all.flatMap((w) => w.inserts);
  return {
    failures: all.flatMap((w) => w.failures),
    inserts,
    duringMigration: inserts.filter((i) => i.at >= started && i.at <= ended).length,
    longestWaitMs: Math.max(...inserts.map((i) => i.ms)),
  };
}

describe('InvitationInbox1765050000000 while the previous release inserts invitations', () => {
  const before = upTo(InvitationInbox1765050000000);
  let db: Scratch;
  afterEach(async () => db?.drop());

  it('lets every insert through, none waiting a second; every row ends with its game and the column NOT NULL', async () => {
    db = await scratchDatabase();
    await migrate(db.url, before);
    const groups = await seedInvitations(db.client, 30_000);

    const run = await migrateUnderWrites(db, groups, [...before, InvitationInbox1765050000000]);
    expect(run.failures).toEqual([]);
    expect(run.duringMigration).toBeGreaterThan(5);
    expect(run.longestWaitMs).toBeLessThan(1000);

    const [counts] = (
      await db.client.query<{ total: number; missing: number; wrong: number }>(
        `SELECT count(*)::int AS total, count(*) FILTER (WHERE i.game_id IS NULL)::int AS missing,
                count(*) FILTER (WHERE i.game_id <> g.game_id)::int AS wrong
         FROM invitations i JOIN groups g ON g.id = i.group_id`,
      )
    ).rows;
    expect(counts).toEqual({ total: 30_000 + run.inserts.length, missing: 0, wrong: 0 });
    const [column] = (
      await db.client.query(`SELECT attnotnull AS "notNull" FROM pg_attribute WHERE attrelid = 'invitations'::regclass AND attname = 'game_id'`)
    ).rows;
    expect(column).toEqual({ notNull: true });
    const checks = await db.client.query(`SELECT conname FROM pg_constraint WHERE conrelid = 'invitations'::regclass AND contype = 'c' AND conname LIKE 'invitations_game_id%'`);
    expect(checks.rows).toEqual([]);
    const [index] = (await db.client.query(`SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = 'invitations_target_inbox'::regclass`)).rows;
    expect(index).toEqual({ valid: true });

    // The previous release still inserts after it (the trigger stays until a later contract migration).
    const [late] = (
      await db.client.query(
        `INSERT INTO invitations AS i (id, group_id, code, role_id, target_user_id, expires_at, max_uses)
         VALUES ($1, $2, 'ffffffffffffffff', null, 'after', null, 1) RETURNING i.game_id AS "gameId"`,
        [randomUUID(), groups[1]],
      )
    ).rows;
    expect(GAMES).toContain(late.gameId);

    // Run again, as after an interruption: nothing changes.
    const schema = await catalog(db.client);
    await withRunner(db.url, (q) => new InvitationInbox1765050000000().up(q));
    expect(await catalog(db.client)).toEqual(schema);
  });

  it('picks up where an interrupted run stopped: the column added, nothing filled yet', async () => {
    db = await scratchDatabase();
    await migrate(db.url, before);
    await seedInvitations(db.client, 3_000);
    await db.client.query('ALTER TABLE invitations ADD COLUMN game_id uuid, ADD COLUMN invited_by_user_id text');
    await migrate(db.url, [...before, InvitationInbox1765050000000]);
    const [{ missing }] = (await db.client.query(`SELECT count(*) FILTER (WHERE game_id IS NULL)::int AS missing FROM invitations`)).rows;
    expect(missing).toBe(0);
  });

  it('(its first form, for comparison: the inserts of the previous release fail once it has run)', async () => {
    db = await scratchDatabase();
    await migrate(db.url, before);
    const groups = await seedInvitations(db.client, 30_000);
    const run = await migrateUnderWrites(db, groups, [...before, firstForm(InvitationInbox1765050000000)]);
    expect(run.failures.length).toBeGreaterThan(0);
    expect(new Set(run.failures)).toEqual(new Set(['23502']));
  });
});

describe('Erasure1765100000000 while audit entries and events are written', () => {
  const before = upTo(Erasure1765100000000);
  let db: Scratch;
  const holders: Client[] = [];
  afterEach(async () => {
    for (const h of holders.splice(0)) await h.end().catch(() => undefined);
    await db?.drop();
  });

  async function seedHistory(c: Client): Promise<void> {
    await c.query(`INSERT INTO games (id, name) VALUES ($1, 'Starfall')`, [GAMES[0]]);
    await c.query(
      `INSERT INTO audit_entries (id, game_id, action, target_id, payload)
       SELECT gen_random_uuid(), $1, 'member.joined', 'player-' || n, jsonb_build_object('userId', 'player-' || n) FROM generate_series(1, 5000) n`,
      [GAMES[0]],
    );
    await c.query(
      `INSERT INTO outbox_events (id, game_id, type, body)
       SELECT lpad(to_hex(n), 24, '0'), $1, 'member.joined', jsonb_build_object('userId', 'player-' || n) FROM generate_series(1, 5000) n`,
      [GAMES[0]],
    );
  }

  /** A write of the previous release, given a second at most; answers how long it took, or the error's SQLSTATE. */
  async function write(url: string, table: 'audit_entries' | 'outbox_events'): Promise<number | string> {
    const c = new Client({ connectionString: url, statement_timeout: 1000 });
    await c.connect();
    try {
      const at = performance.now();
      if (table === 'audit_entries') {
        await c.query(`INSERT INTO audit_entries (id, game_id, action, target_id) VALUES ($1, $2, 'member.left', 'player-x')`, [randomUUID(), GAMES[0]]);
      } else {
        await c.query(`INSERT INTO outbox_events (id, game_id, type, body) VALUES ($1, $2, 'member.left', '{}')`, [randomBytes(12).toString('hex'), GAMES[0]]);
      }
      return performance.now() - at;
    } catch (err) {
      return sqlState(err) ?? String(err);
    } finally {
      await c.end();
    }
  }

  /** A transaction with a snapshot, which a concurrent build started after it waits for. */
  async function holdSnapshot(url: string): Promise<Client> {
    const h = new Client({ connectionString: url });
    await h.connect();
    holders.push(h);
    await h.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await h.query('SELECT 1');
    return h;
  }

  async function buildWaiting(c: Client, index: string): Promise<void> {
    for (let waited = 0; ; waited += 50) {
      const { rows } = await c.query(`SELECT 1 FROM pg_stat_activity WHERE query LIKE $1 AND wait_event_type = 'Lock'`, [`CREATE INDEX CONCURRENTLY % ${index} %`]);
      if (rows.length) return;
      if (waited > 20_000) throw new Error(`the build of ${index} never waited`);
      await sleep(50);
    }
  }

  it('its index builds let inserts into audit_entries and outbox_events through while they run', async () => {
    db = await scratchDatabase();
    await migrate(db.url, before);
    await seedHistory(db.client);

    // Each build is held in its last phase by a transaction older than it.
    const first = await holdSnapshot(db.url);
    const migrating = migrate(db.url, [...before, Erasure1765100000000]);
    await buildWaiting(db.client, 'audit_entries_mentions');
    const audit = await write(db.url, 'audit_entries');
    const second = await holdSnapshot(db.url);
    await first.query('COMMIT');
    await buildWaiting(db.client, 'outbox_events_mentions');
    const events = await write(db.url, 'outbox_events');
    await second.query('COMMIT');
    await migrating;

    expect(typeof audit).toBe('number');
    expect(audit).toBeLessThan(1000);
    expect(typeof events).toBe('number');
    expect(events).toBeLessThan(1000);
    const { rows } = await db.client.query(
      `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE c.relname IN ('audit_entries_mentions', 'outbox_events_mentions', 'invitations_target', 'invitations_sender', 'invitations_used_by', 'groups_owner', 'erasures_order', 'erasures_subject')
       ORDER BY 1`,
    );
    expect(rows).toEqual(
      ['audit_entries_mentions', 'erasures_order', 'erasures_subject', 'groups_owner', 'invitations_sender', 'invitations_target', 'invitations_used_by', 'outbox_events_mentions'].map((name) => ({ name, valid: true })),
    );
  });

  it('(its first form, for comparison: an insert waits for the build, here for longer than its second)', async () => {
    db = await scratchDatabase();
    await migrate(db.url, before);
    await seedHistory(db.client);
    // The first form builds in the migration's transaction: held open here, as a build on a long history holds it.
    await withRunner(db.url, async (q) => {
      await q.startTransaction();
      try {
        await new (firstForm(Erasure1765100000000))().up(q);
        expect(await write(db.url, 'audit_entries')).toBe('57014');
        expect(await write(db.url, 'outbox_events')).toBe('57014');
      } finally {
        await q.rollbackTransaction();
      }
    });
  });
});

describe('a statement taking a lock that blocks writes (online.ts lockedStatement)', () => {
  let db: Scratch;
  afterEach(async () => db?.drop());

  /** Inserts into lock_probe every 20 ms until stopped: how long the longest waited. */
  async function probeWrites(url: string, stop: () => boolean): Promise<number> {
    const c = new Client({ connectionString: url });
    await c.connect();
    let longest = 0;
    try {
      while (!stop()) {
        const at = performance.now();
        await c.query('INSERT INTO lock_probe (id) VALUES (1)');
        longest = Math.max(longest, performance.now() - at);
        await sleep(20);
      }
    } finally {
      await c.end();
    }
    return longest;
  }

  /** A transaction writing lock_probe for `ms`. */
  async function longWriter(url: string, ms: number): Promise<void> {
    const c = new Client({ connectionString: url });
    // Ended by the database's drop when the test is over first.
    c.on('error', () => undefined);
    await c.connect();
    await c.query('BEGIN');
    await c.query('INSERT INTO lock_probe (id) VALUES (0)');
    setTimeout(() => {
      c.query('COMMIT')
        .catch(() => undefined)
        .finally(() => void c.end().catch(() => undefined));
    }, ms);
  }

  it('behind a long transaction, gives its place up after lock_timeout and tries again: writes wait no longer than that', async () => {
    db = await scratchDatabase();
    await db.client.query('CREATE TABLE lock_probe (id int)');
    await longWriter(db.url, 5_000);
    let stopped = false;
    const writes = probeWrites(db.url, () => stopped);
    const started = performance.now();
    await withRunner(db.url, (q) => lockedStatement(q, 'ALTER TABLE lock_probe ADD COLUMN note text'));
    const took = performance.now() - started;
    stopped = true;
    expect(took).toBeGreaterThan(4_000);
    expect(await writes).toBeLessThan(parseFloat(LOCK_TIMEOUT) * 1000 + 600);
    const { rows } = await db.client.query(`SELECT 1 FROM pg_attribute WHERE attrelid = 'lock_probe'::regclass AND attname = 'note'`);
    expect(rows).toHaveLength(1);
  });

  it('gives up after its tries, saying what holds it', async () => {
    db = await scratchDatabase();
    await db.client.query('CREATE TABLE lock_probe (id int)');
    await longWriter(db.url, 3_000);
    const outcome = await withRunner(db.url, (q) =>
      lockedStatement(q, 'ALTER TABLE lock_probe ADD COLUMN note text', undefined, { lockTimeout: '100ms', attempts: 2 }).then(
        () => 'done',
        (err: Error) => `${sqlState(err)} ${err.message}`,
      ),
    );
    expect(outcome).toMatch(/^55P03 .*a lock was not granted within 100ms in 2 tries/);
  });

  it('(a plain ALTER, for comparison: writes wait for as long as the long transaction runs)', async () => {
    db = await scratchDatabase();
    await db.client.query('CREATE TABLE lock_probe (id int)');
    await longWriter(db.url, 3_000);
    let stopped = false;
    const writes = probeWrites(db.url, () => stopped);
    await sleep(100);
    await withRunner(db.url, (q) => q.query('ALTER TABLE lock_probe ADD COLUMN note text'));
    stopped = true;
    expect(await writes).toBeGreaterThan(2_500);
  });
});

/**
 * The schema of the current database, one line per column, constraint, index, trigger, function,
 * sequence and extension: what a migration leaves, compared between two databases.
 */
async function catalog(c: Client): Promise<string[]> {
  const lines = async (sql: string) => (await c.query<{ line: string }>(sql)).rows.map((r) => r.line);
  const ours = `n.nspname = current_schema()`;
  const notExtension = (oid: string) => `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = ${oid} AND d.deptype = 'e')`;
  return [
    ...(await lines(`
      SELECT format('column %s.%s #%s %s%s%s%s%s', t.relname, a.attname, a.attnum, format_type(a.atttypid, a.atttypmod),
                    CASE WHEN a.attnotnull THEN ' not null' ELSE '' END,
                    coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), ''),
                    CASE a.attidentity WHEN 'a' THEN ' identity always' WHEN 'd' THEN ' identity by default' ELSE '' END,
                    CASE WHEN a.attcollation <> 0 AND a.attcollation <> t_typ.typcollation THEN ' collate ' || co.collname ELSE '' END) AS line
      FROM pg_attribute a JOIN pg_class t ON t.oid = a.attrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      JOIN pg_type t_typ ON t_typ.oid = a.atttypid
      LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
      LEFT JOIN pg_collation co ON co.oid = a.attcollation
      WHERE ${ours} AND t.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`)),
    ...(await lines(`
      SELECT format('constraint %s.%s %s%s', t.relname, k.conname, pg_get_constraintdef(k.oid), CASE WHEN k.convalidated THEN '' ELSE ' NOT VALIDATED' END) AS line
      FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace WHERE ${ours}`)),
    ...(await lines(`
      SELECT format('index %s%s', pg_get_indexdef(i.indexrelid), CASE WHEN i.indisvalid THEN '' ELSE ' INVALID' END) AS line
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${ours}`)),
    ...(await lines(`
      SELECT format('trigger %s', pg_get_triggerdef(g.oid)) AS line
      FROM pg_trigger g JOIN pg_class t ON t.oid = g.tgrelid JOIN pg_namespace n ON n.oid = t.relnamespace WHERE ${ours} AND NOT g.tgisinternal`)),
    ...(await lines(`
      SELECT format('function %s', pg_get_functiondef(p.oid)) AS line
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${ours} AND ${notExtension('p.oid')}`)),
    ...(await lines(`
      SELECT format('sequence %s', c.relname) AS line FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${ours} AND c.relkind = 'S'`)),
    ...(await lines(`SELECT format('extension %s', extname) AS line FROM pg_extension`)),
  ].sort();
}

describe('the reworked migrations leave the schema their first forms left', () => {
  let first: Scratch;
  let reworked: Scratch;
  afterAll(async () => {
    await first?.drop();
    await reworked?.drop();
  });

  it('column for column, constraint for constraint, index for index: only the trigger that serves the previous release is added', async () => {
    [first, reworked] = await Promise.all([scratchDatabase(), scratchDatabase()]);
    const reworkedNames = Object.keys(FIRST_FORMS);
    expect(reworkedNames.every((name) => MIGRATIONS.some((M) => nameOf(M) === name))).toBe(true);
    await Promise.all([migrate(first.url, MIGRATIONS.map((M) => FIRST_FORMS[nameOf(M)] ?? M)), migrate(reworked.url, [...MIGRATIONS])]);

    const [a, b] = await Promise.all([catalog(first.client), catalog(reworked.client)]);
    expect(a.length).toBeGreaterThan(300);
    const onlyFirst = a.filter((line) => !b.includes(line));
    const onlyReworked = b.filter((line) => !a.includes(line));
    expect(onlyFirst).toEqual([]);
    expect(onlyReworked.map((line) => line.split('\n')[0])).toEqual([
      'function CREATE OR REPLACE FUNCTION public.invitations_game_id()',
      'trigger CREATE TRIGGER invitations_game_id BEFORE INSERT ON public.invitations FOR EACH ROW EXECUTE FUNCTION invitations_game_id()',
    ]);
  });
});
