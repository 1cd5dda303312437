import { Client } from 'pg';
import { databaseUnavailableCause } from '../../src/common/errors/db-unavailable';
import { SweeperService } from '../../src/sweeper/sweeper.service';
import { GroupsRepository } from '../../src/groups/groups.repository';
import { journalEvents } from '../helpers/journal';
import { authedGame, newGame, startTestApp, type TestApp } from '../helpers/test-app';

describe('hourly sweeper', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('expires the events older than the retention window and keeps recent ones', async () => {
    const { gameId } = await newGame(t);
    await t.db.query(
      `INSERT INTO journal (id, game_id, type, body, created_at, names) VALUES
         ('aaaaaaaa-aaaa-aaaa-aaaa-aaaa00000000', $1, 'group.created', '{}', now() - interval '8 days', '{}'),
         ('bbbbbbbb-bbbb-bbbb-bbbb-bbbb00000000', $1, 'group.created', '{}', now() - interval '6 days', '{}')`,
      [gameId],
    );
    const result = await t.app.get(SweeperService).sweep();
    expect(result).toEqual({ swept: true, groupsRemoved: 0, eventsExpired: 1, webhookDeliveriesRemoved: 0, previousSecretsCleared: 0, notificationsRemoved: 0 });
    const left = await t.db.query<{ id: string }>(`SELECT id FROM ${journalEvents()} WHERE game_id = $1`, [gameId]);
    expect(left.map((r) => r.id)).toEqual(['bbbbbbbbbbbbbbbbbbbbbbbb']);
  });

  it('skips the tick while another instance holds the sweep lock', async () => {
    const other = new Client({ connectionString: t.db.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_advisory_xact_lock(7310422002)');
      await expect(t.app.get(SweeperService).sweep()).resolves.toEqual({ swept: false, groupsRemoved: 0, eventsExpired: 0, webhookDeliveriesRemoved: 0, previousSecretsCleared: 0, notificationsRemoved: 0 });
      await other.query('COMMIT');
      await expect(t.app.get(SweeperService).sweep()).resolves.toMatchObject({ swept: true });
    } finally {
      await other.end();
    }
  });

  it('two instances sweeping at once: exactly one sweeps', async () => {
    const second = await startTestApp({}, t.db);
    try {
      const results = await Promise.all([t.app.get(SweeperService).sweep(), second.app.get(SweeperService).sweep()]);
      expect(results.filter((r) => r.swept).length).toBeGreaterThanOrEqual(1);
      // Serialised: never both inside the lock at once. A sweep that found the lock taken skipped.
      expect(results.length).toBe(2);
    } finally {
      await second.close();
    }
  });
  describe('a connection lost in the middle of a sweep', () => {
    /**
     * A group soft-deleted past the restore window, its row locked by another transaction: the
     * sweep's purge waits on it, which holds the sweep still while a test ends a connection.
     */
    async function sweepHeldByPurge(): Promise<{ sweeping: Promise<unknown>; blocker: Client }> {
      const { auth } = await authedGame(t);
      const created = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'purged', visibility: 'public' });
      expect(created.status).toBe(201);
      await t.db.query(`UPDATE groups SET soft_deleted_at = now() - interval '8 days' WHERE id = $1`, [created.body.id]);
      const blocker = new Client({ connectionString: t.db.url });
      await blocker.connect();
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM groups WHERE id = $1 FOR UPDATE', [created.body.id]);
      const sweeping = t.app.get(SweeperService).sweep().then(
        (r) => r,
        (err: unknown) => err,
      );
      await waitFor(async () => (await backends(`wait_event_type = 'Lock' AND query LIKE '%DELETE FROM groups%'`)).length === 1);
      return { sweeping, blocker };
    }

    const backends = async (where: string) =>
      (await t.db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND ${where}`)).map((r) => r.pid);

    async function waitFor(check: () => Promise<boolean>): Promise<void> {
      for (let i = 0; i < 200; i++) {
        if (await check()) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('timed out');
    }

    it('the sweep fails as database unavailable, and the next sweep takes the lock and purges', async () => {
      const { sweeping, blocker } = await sweepHeldByPurge();
      try {
        // One connection holds the sweep lock and runs the purge.
        const [sweeper] = await backends(`wait_event_type = 'Lock' AND query LIKE '%DELETE FROM groups%'`);
        await t.db.query('SELECT pg_terminate_backend($1)', [sweeper]);
        const err = await sweeping;
        expect(err).toBeInstanceOf(Error);
        expect(databaseUnavailableCause(err)).not.toBeNull();
      } finally {
        await blocker.query('ROLLBACK');
        await blocker.end();
      }
      await expect(t.app.get(SweeperService).sweep()).resolves.toMatchObject({ swept: true, groupsRemoved: 1 });
    });

    it('between two of its statements: the sweep fails as database unavailable, not as "already released"', async () => {
      // The connection that holds the sweep lock is ended while the purge's transaction is open and
      // idle: its COMMIT then meets a runner TypeORM has already released.
      const groups = t.app.get(GroupsRepository);
      const spy = jest.spyOn(groups, 'purgeSoftDeleted').mockImplementation(async () => {
        const holders = await t.db.query<{ pid: number }>(
          `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
             AND classid = (7310422002::bigint >> 32)::oid AND objid = (7310422002::bigint & 4294967295)::oid`,
        );
        await t.db.query('SELECT pg_terminate_backend($1)', [holders[0].pid]);
        await new Promise((r) => setTimeout(r, 200));
        return 0;
      });
      try {
        const err = await t.app.get(SweeperService).sweep().then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(Error);
        expect(databaseUnavailableCause(err)).not.toBeNull();
      } finally {
        spy.mockRestore();
      }
      await expect(t.app.get(SweeperService).sweep()).resolves.toMatchObject({ swept: true });
    });
  });
});
