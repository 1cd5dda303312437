import { Client } from 'pg';
import { MIGRATIONS } from '../../migrations';
import { LOCK_TIMEOUT } from '../../migrations/online';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { CLI_JS, cleanEnv, killAll, requireBuild, runNode } from '../helpers/process';

/**
 * A rollback under traffic (docs/upgrades.md): the down of a migration that runs outside a
 * transaction runs so too, as its up does. Its statement that needs a lock the traffic holds waits
 * at most LOCK_TIMEOUT, lets go and tries again after a pause, until the lock comes; in the one
 * transaction TypeORM wraps every down in, it could make only one try and the revert failed.
 */

jest.setTimeout(90_000);

const REVERTED = 'EventEnvelopeFromColumns1768400000000';
/** What `--to` keeps: the migration before REVERTED. */
const KEEP = (() => {
  const names = MIGRATIONS.map((M) => new M().name);
  return names[names.indexOf(REVERTED) - 1];
})();
/** Longer than a lock wait, so that one try cannot get past it. */
const HELD_MS = 3 * parseFloat(LOCK_TIMEOUT) * 1000;

describe('migrate down (built dist/src/cli.js) of a migration that runs outside a transaction', () => {
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

  it('waits out a lock held longer than its lock timeout, trying again, and reverts once it is released', async () => {
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
      const down = await cli(['migrate', 'down', '--to', KEEP]);
      await released;

      expect({ code: down.code, stderr: down.stderr, stdout: down.stdout.trim() }).toEqual({
        code: 0,
        stderr: '',
        stdout: `reverted 1 migration(s), newest first: ${REVERTED}`,
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(HELD_MS);
      expect(await db.query('SELECT name FROM schema_migrations WHERE name = $1', [REVERTED])).toEqual([]);
    } finally {
      await holder.end();
    }

    const up = await cli(['migrate', 'up']);
    expect({ code: up.code, stdout: up.stdout.trim() }).toEqual({ code: 0, stdout: `applied 1 migration(s): ${REVERTED}` });
  });
});
