import { Client } from 'pg';
import { MIGRATIONS } from '../../migrations';
import { LOCK_TIMEOUT } from '../../migrations/online';
import { oldestReleaseFor, releaseOf } from '../../migrations/release';
import { RELEASE } from '../../src/version';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { cleanEnv, CLI_JS, freePort, http, killAll, lines, MAIN_JS, requireBuild, runNode, serverEnv, sleep, spawnNode, startServerProcess, TEST_ADMIN_TOKEN, waitForHealthy } from '../helpers/process';

/**
 * The schema under the operator's control (docs/upgrades.md), with the BUILT command and server as
 * processes: `migrate status | up | down --to`, MIGRATE_ON_BOOT=false, the other commands refusing
 * pending migrations, and a build refusing (at start, and while running) a database migrated by a
 * newer release it may not run beside.
 */

jest.setTimeout(90_000);

const KEEP = 'LockKeysProcedure1765700000000';
/** The migrations after KEEP, newest first, and what each is to the releases: every one of 1.0.0 and later. */
const LATER = MIGRATIONS.map((M) => new M())
  .slice(MIGRATIONS.findIndex((M) => new M().name === KEEP) + 1)
  .reverse();
const AFTER_KEEP = LATER.map((m) => m.name);
const PENDING = `${AFTER_KEEP.length} migrations are pending`;

/**
 * A rollback under traffic: the down of a migration that runs outside a transaction runs so too, as
 * its up does (downsInTransaction). Its statement that needs a lock the traffic holds waits at most
 * LOCK_TIMEOUT, lets go and tries again after a pause, until the lock comes; in the one
 * transaction TypeORM would wrap it in, it could make one try only and the revert failed.
 */
const REVERTED = 'MemberSnapshotsShort1768500000000';
const BEFORE_REVERTED = AFTER_KEEP[AFTER_KEEP.indexOf(REVERTED) + 1];
/** It and the ones after it, newest first: what `down --to BEFORE_REVERTED` reverts and `up` applies again. */
const REVERTING = AFTER_KEEP.slice(0, AFTER_KEEP.indexOf(REVERTED) + 1);
/** Longer than a lock wait, so that one try cannot get past it. */
const HELD_MS = 3 * parseFloat(LOCK_TIMEOUT) * 1000;

describe('migrate (built dist/src/cli.js) and the releases a database lets run', () => {
  let db: TestDatabase;
  const cli = (args: string[]) => runNode(CLI_JS, args, cleanEnv({ DATABASE_URL: db.url, SVC_DATA_DIR: '/nonexistent' }), 60_000);

  beforeAll(async () => {
    requireBuild();
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await killAll();
    await db?.drop();
  });

  it('status lists every migration with its release and kind, and says the database is up to date', async () => {
    const r = await cli(['migrate', 'status']);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]).toBe(`this build: release ${RELEASE}`);
    expect(out).toContainEqual(expect.stringMatching(/^applied\s+Foundation1763700000000\s+0\.0\.0\s+expand$/));
    expect(out).toContainEqual(expect.stringMatching(/^applied\s+SchemaReleases1766000000000\s+1\.0\.0\s+expand$/));
    expect(out[out.length - 1]).toBe('up to date: this build may run on the database');
  });

  it('down of a migration that runs outside a transaction waits out a lock held longer than its lock timeout, trying again, and reverts once it is released', async () => {
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    try {
      // A transaction that keeps every write of the journal out, as a long report or backup might.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE journal IN SHARE MODE');
      const started = Date.now();
      const released = new Promise<void>((resolve) =>
        setTimeout(() => void holder.query('COMMIT').then(() => resolve()), HELD_MS),
      );
      const down = await cli(['migrate', 'down', '--to', BEFORE_REVERTED]);
      await released;

      expect({ code: down.code, stderr: down.stderr, stdout: down.stdout.trim() }).toEqual({
        code: 0,
        stderr: '',
        stdout: `reverted ${REVERTING.length} migration(s), newest first: ${REVERTING.join(', ')}`,
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(HELD_MS);
      expect(await db.query('SELECT name FROM schema_migrations WHERE name = $1', [REVERTED])).toEqual([]);
    } finally {
      await holder.end();
    }

    const up = await cli(['migrate', 'up']);
    expect({ code: up.code, stdout: up.stdout.trim() }).toEqual({ code: 0, stdout: `applied ${REVERTING.length} migration(s): ${[...REVERTING].reverse().join(', ')}` });
  });

  it('down --to <name> reverts the later ones, newest first; the other commands and a server that may not migrate then refuse in one line', async () => {
    const down = await cli(['migrate', 'down', '--to', KEEP]);
    expect({ code: down.code, stderr: down.stderr }).toEqual({ code: 0, stderr: '' });
    expect(AFTER_KEEP).toEqual(expect.arrayContaining(['AccessLedger1766300000000', 'SchemaReleases1766000000000', 'ServiceKeys1765900000000', 'MentionNames1765800000000']));
    expect(down.stdout.trim()).toBe(`reverted ${AFTER_KEEP.length} migration(s), newest first: ${AFTER_KEEP.join(', ')}`);
    expect(await db.query(`SELECT to_regclass('service_keys') AS t, to_regclass('schema_releases') AS r, to_regclass('access_ledger') AS l`)).toEqual([
      { t: null, r: null, l: null },
    ]);

    const status = await cli(['migrate', 'status']);
    expect(lines(status.stdout).filter((l) => l.startsWith('pending'))).toHaveLength(AFTER_KEEP.length);

    const list = await cli(['key:list', '0190f2a4-0000-7000-8000-000000000000']);
    expect(list.code).toBe(1);
    expect(lines(list.stderr)).toEqual([expect.stringMatching(new RegExp(`^guildhall: ${PENDING} on the database \\(.*\\): apply them first with \`guildhall migrate up\``))]);

    const port = await freePort();
    const server = spawnNode(MAIN_JS, [], serverEnv(db.url, port, { MIGRATE_ON_BOOT: 'false' }));
    const exit = await server.waitForExit(30_000);
    expect(exit.code).toBe(1);
    expect(lines(server.stderr())).toEqual([expect.stringMatching(new RegExp(`^guildhall: ${PENDING} on the database`))]);
    // Nothing was applied by any of them.
    expect(await db.query(`SELECT count(*)::int AS n FROM schema_migrations WHERE name = ANY($1)`, [AFTER_KEEP])).toEqual([{ n: 0 }]);
  });

  it('up applies what is pending, records each one\'s release, and is a no-op the second time', async () => {
    const up = await cli(['migrate', 'up']);
    expect(up.code).toBe(0);
    expect(up.stdout.trim()).toBe(`applied ${AFTER_KEEP.length} migration(s): ${[...AFTER_KEEP].reverse().join(', ')}`);
    const recorded = await db.query<{ name: string; release: string; kind: string; oldest_release: string }>(
      `SELECT name, release, kind, oldest_release FROM schema_releases WHERE name = ANY($1) ORDER BY name`,
      [AFTER_KEEP],
    );
    const expected = LATER.map((m) => ({ name: m.name, release: releaseOf(m).version, kind: releaseOf(m).kind, oldest_release: oldestReleaseFor(releaseOf(m)) }));
    expect(recorded).toEqual(expected.sort((a, b) => a.name.localeCompare(b.name)));
    expect(recorded.find((r) => r.name === 'AccessLedger1766300000000')).toEqual({ name: 'AccessLedger1766300000000', release: '1.1.0', kind: 'expand', oldest_release: '1.0.0' });
    expect((await cli(['migrate', 'up'])).stdout.trim()).toBe('nothing to apply: the database has every migration of this build');
  });

  describe('a newer release\'s contract migration applied under this build', () => {
    const NEWER = 'DropSomething1799000000000';
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const applyNewer = async () => {
      await db.query(`INSERT INTO schema_migrations ("timestamp", name) VALUES (1799000000000, $1)`, [NEWER]);
      await db.query(`INSERT INTO schema_releases (name, release, kind, oldest_release) VALUES ($1, '9.1.0', 'contract', '9.1.0')`, [NEWER]);
    };
    const withdrawNewer = async () => {
      await db.query(`DELETE FROM schema_migrations WHERE name = $1`, [NEWER]);
      await db.query(`DELETE FROM schema_releases WHERE name = $1`, [NEWER]);
    };

    it('a running server notices within 10 s: /healthz 503 with the reason, writes 503 with Retry-After, reads go on', async () => {
      const server = await startServerProcess(db.url);
      await waitForHealthy(server.url);
      const game = await http(`${server.url}/v1/admin/games`, { method: 'POST', headers: admin, body: { name: 'before' } });
      expect(game.status).toBe(201);
      await applyNewer();
      try {
        let health = await http(`${server.url}/healthz`);
        for (const until = Date.now() + 12_000; health.status === 200 && Date.now() < until; health = await http(`${server.url}/healthz`)) await sleep(250);
        expect(health.status).toBe(503);
        expect(health.body.schema).toEqual({ ok: false, reason: expect.stringContaining(`${NEWER} of release 9.1.0 (contract)`) });
        const write = await http(`${server.url}/v1/admin/games`, { method: 'POST', headers: admin, body: { name: 'after' } });
        expect(write.status).toBe(503);
        expect(write.headers.get('retry-after')).toBe('10');
        expect(write.body).toMatchObject({ code: 'service_unavailable', message: expect.stringContaining(`this build is release ${RELEASE}`) });
        const read = await http(`${server.url}/v1/admin/games`, { headers: admin });
        expect(read.status).toBe(200);
      } finally {
        await withdrawNewer();
        server.proc.child.kill('SIGTERM');
        await server.proc.waitForExit(35_000);
      }
    });

    it('a server will not start on it (one line naming both releases), status says so, and down will not revert past it', async () => {
      await applyNewer();
      try {
        const port = await freePort();
        const server = spawnNode(MAIN_JS, [], serverEnv(db.url, port));
        const exit = await server.waitForExit(30_000);
        expect(exit.code).toBe(1);
        expect(lines(server.stderr())).toEqual([
          `guildhall: the database has migration ${NEWER} of release 9.1.0 (contract), which needs release 9.1.0 or later; this build is release ${RELEASE}: run release 9.1.0 or later, or have that release roll the schema back (guildhall migrate down)`,
        ]);
        const status = await cli(['migrate', 'status']);
        expect(lines(status.stdout)).toContainEqual(expect.stringMatching(new RegExp(`^newer\\s+${NEWER}\\s+9\\.1\\.0\\s+contract\\s+\\(needs release 9\\.1\\.0 or later: this build may not run\\)$`)));
        const down = await cli(['migrate', 'down', '--to', KEEP]);
        expect(down.code).toBe(1);
        expect(lines(down.stderr)).toEqual([`guildhall: ${NEWER} was applied by a newer release: revert it with that release's \`guildhall migrate down\` first`]);
        const up = await cli(['migrate', 'up']);
        expect(up.code).toBe(1);
        expect(lines(up.stderr)).toEqual([expect.stringMatching(/^guildhall: the database has migration DropSomething1799000000000 of release 9.1.0/)]);
      } finally {
        await withdrawNewer();
      }
    });

    it('an expand migration of a newer release lets this build start and write beside it', async () => {
      await db.query(`INSERT INTO schema_migrations ("timestamp", name) VALUES (1799000000001, 'AddSomething1799000000001')`);
      await db.query(`INSERT INTO schema_releases (name, release, kind, oldest_release) VALUES ('AddSomething1799000000001', '9.1.0', 'expand', '1.0.0')`);
      const server = await startServerProcess(db.url);
      const health = await waitForHealthy(server.url);
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ release: RELEASE, schema: { ok: true } });
      server.proc.child.kill('SIGTERM');
      await server.proc.waitForExit(35_000);
    });
  });
});
