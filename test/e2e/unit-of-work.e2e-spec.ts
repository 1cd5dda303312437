import type { EventEmitter } from 'node:events';
import { DataSource } from 'typeorm';
import { databaseUnavailableCause } from '../../src/common/errors/db-unavailable';
import type { SvcEvent } from '../../src/events/event';
import { EventBus } from '../../src/events/event-bus';
import { UnitOfWork, type Tx } from '../../src/db/unit-of-work';
import { IdentityService } from '../../src/identity/identity.service';
import { journalAudit, journalEvents } from '../helpers/journal';
import { newGame, startTestApp, type TestApp } from '../helpers/test-app';

/** SPEC §1.6: one transaction makes the change, writes its audit entry and stages its events. */
describe('unit of work', () => {
  let t: TestApp;
  let uow: UnitOfWork;
  let gameId: string;
  const published: SvcEvent[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    uow = t.app.get(UnitOfWork);
    t.app.get(EventBus).events$.subscribe((e) => published.push(e));
    ({ gameId } = await newGame(t));
  });
  afterAll(() => t.close());

  it('commits the change, its audit entries and its outbox events together; events publish after commit', async () => {
    let seenInside = -1;
    const event = await uow.run(async (tx) => {
      await tx.manager.query(`UPDATE games SET name = 'renamed' WHERE id = $1`, [gameId]);
      tx.audit({ gameId, action: 'game.config.updated', targetId: gameId, payload: { before: 1, after: 2 } });
      const e = tx.emit({ type: 'group.updated', gameId, groupId: '00000000-0000-7000-8000-000000000001', data: { changes: ['name'] } });
      seenInside = published.filter((p) => p.id === e.id).length;
      return e;
    });
    expect(seenInside).toBe(0);
    expect(published.filter((p) => p.id === event.id)).toHaveLength(1);
    expect(event).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      type: 'group.updated',
      gameId,
      groupId: '00000000-0000-7000-8000-000000000001',
      occurredAt: expect.any(String),
      changes: ['name'],
    });
    const [audit] = await t.db.query(`SELECT * FROM ${journalAudit()} WHERE target_id = $1`, [gameId]);
    expect(audit).toMatchObject({ action: 'game.config.updated', game_id: gameId, group_id: null, payload: { before: 1, after: 2 } });
    const [outbox] = await t.db.query<{ body: SvcEvent }>(`SELECT body FROM ${journalEvents()} WHERE id = $1`, [event.id]);
    expect(outbox.body).toEqual(event);
  });

  it('a user-scoped event carries no groupId', async () => {
    const e = await uow.run(async (tx) => tx.emit({ type: 'game.user.banned', gameId, data: { svcUserId: 'u1' } }));
    expect('groupId' in e).toBe(false);
  });

  it('a failing mutation leaves nothing behind: no change, no audit, no outbox row, no event', async () => {
    const before = published.length;
    await expect(
      uow.run(async (tx) => {
        await tx.manager.query(`UPDATE games SET name = 'never' WHERE id = $1`, [gameId]);
        tx.audit({ gameId, action: 'webhook.created', targetId: 'rollback-marker' });
        tx.emit({ type: 'group.created', gameId, groupId: gameId });
        tx.afterCommit(() => published.push({} as SvcEvent));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(published.length).toBe(before);
    expect(await t.db.query(`SELECT 1 FROM games WHERE name = 'never'`)).toHaveLength(0);
    expect(await t.db.query(`SELECT 1 FROM ${journalAudit()} WHERE target_id = 'rollback-marker'`)).toHaveLength(0);
  });

  it('a failure while flushing (bad audit row) rolls the change back too', async () => {
    await expect(
      uow.run(async (tx) => {
        await tx.manager.query(`UPDATE games SET name = 'half' WHERE id = $1`, [gameId]);
        tx.audit({ gameId: 'not-a-uuid', action: 'webhook.created' });
      }),
    ).rejects.toThrow();
    expect(await t.db.query(`SELECT 1 FROM games WHERE name = 'half'`)).toHaveLength(0);
  });

  describe('a connection lost (DECISIONS §30: nothing half-written)', () => {
    /** This transaction's server process, ended from outside as a restart or a failover would. */
    const terminateOwnBackend = async (tx: Tx) => {
      const [{ pid }] = await tx.manager.query('SELECT pg_backend_pid() AS pid');
      await t.db.query('SELECT pg_terminate_backend($1)', [pid]);
    };
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const rowsNamed = async (name: string) => ({
      games: await t.db.query(`SELECT 1 FROM games WHERE name = $1`, [name]),
      audit: await t.db.query(`SELECT 1 FROM ${journalAudit()} WHERE target_id = $1`, [name]),
    });

    it('between two queries rolls the change back, publishes nothing and fails as database-unavailable', async () => {
      const before = published.length;
      const hooks: string[] = [];
      const err = await uow
        .run(async (tx) => {
          await tx.manager.query(`UPDATE games SET name = 'lost-mid' WHERE id = $1`, [gameId]);
          tx.audit({ gameId, action: 'webhook.created', targetId: 'lost-mid' });
          tx.emit({ type: 'group.created', gameId, groupId: gameId });
          tx.afterCommit(() => hooks.push('hook'));
          await terminateOwnBackend(tx);
          // Idle in the transaction until the loss is noticed: TypeORM then releases the runner,
          // and the flush that follows fails with "already released" rather than the server's error.
          for (let i = 0; i < 100 && !tx.manager.queryRunner!.isReleased; i++) await sleep(20);
          expect(tx.manager.queryRunner!.isReleased).toBe(true);
        })
        .catch((e: unknown) => e);

      expect(databaseUnavailableCause(err)).not.toBeNull();
      expect(published.length).toBe(before);
      expect(hooks).toEqual([]);
      expect(await rowsNamed('lost-mid')).toEqual({ games: [], audit: [] });
    });

    it('a runner released mid-transaction with no connection error seen still fails as database-unavailable', async () => {
      const before = published.length;
      const err = await uow
        .run(async (tx) => {
          await tx.manager.query(`UPDATE games SET name = 'released-mid' WHERE id = $1`, [gameId]);
          tx.emit({ type: 'group.created', gameId, groupId: gameId });
          // As when the socket ends without an error event: TypeORM releases the runner, and the
          // next query fails with "already released".
          await terminateOwnBackend(tx);
          await tx.manager.queryRunner!.release();
          await tx.manager.query('SELECT 1');
        })
        .catch((e: unknown) => e);

      expect(databaseUnavailableCause(err)).not.toBeNull();
      expect(published.length).toBe(before);
      expect(await rowsNamed('released-mid')).toEqual({ games: [], audit: [] });
    });

    it('as the closing batch (the flush, which carries the COMMIT) is sent, publishes nothing and runs no after-commit hook', async () => {
      const before = published.length;
      const hooks: string[] = [];
      const err = await uow
        .run(async (tx) => {
          await tx.manager.query(`UPDATE games SET name = 'lost-commit' WHERE id = $1`, [gameId]);
          tx.audit({ gameId, action: 'webhook.created', targetId: 'lost-commit' });
          tx.emit({ type: 'group.created', gameId, groupId: gameId });
          tx.afterCommit(() => hooks.push('hook'));
          // The connection dies after the work, as the flush and its COMMIT are about to be sent.
          const query = tx.manager.query.bind(tx.manager);
          let ended = false;
          tx.manager.query = async (sql: string, params?: unknown[]) => {
            if (!ended && sql.trimStart().startsWith('WITH audit AS')) {
              ended = true;
              await terminateOwnBackend(tx);
            }
            return query(sql, params);
          };
        })
        .catch((e: unknown) => e);

      expect(databaseUnavailableCause(err)).not.toBeNull();
      expect(published.length).toBe(before);
      expect(hooks).toEqual([]);
      expect(await rowsNamed('lost-commit')).toEqual({ games: [], audit: [] });
    });

    it('the pool drops the dead connection: the next mutation commits', async () => {
      await uow.run(async (tx) => {
        await tx.manager.query(`UPDATE games SET name = 'after-loss' WHERE id = $1`, [gameId]);
      });
      expect((await rowsNamed('after-loss')).games).toHaveLength(1);
    });
  });

  describe('round trips (BEGIN rides with the first statement, COMMIT with the flush)', () => {
    /** Round trips the transaction's connection completes while `work` runs and commits. */
    const roundTrips = async (work: (tx: Tx) => Promise<void>) => {
      let count = 0;
      let connection: { connection: EventEmitter } | undefined;
      const count1 = () => count++;
      await uow.run(async (tx) => {
        connection = (tx.manager.queryRunner as unknown as { databaseConnection: { connection: EventEmitter } }).databaseConnection;
        connection.connection.on('readyForQuery', count1);
        await work(tx);
      });
      connection!.connection.removeListener('readyForQuery', count1);
      return count;
    };

    it('a mutation of one statement with an audit entry takes two round trips, and commits', async () => {
      const n = await roundTrips(async (tx) => {
        await tx.manager.query(`UPDATE games SET name = 'two-trips' WHERE id = $1`, [gameId]);
        tx.audit({ gameId, action: 'webhook.created', targetId: 'two-trips' });
      });
      expect(n).toBe(2);
      expect((await t.db.query(`SELECT 1 FROM games WHERE name = 'two-trips'`)).length).toBe(1);
      expect((await t.db.query(`SELECT 1 FROM ${journalAudit()} WHERE target_id = 'two-trips'`)).length).toBe(1);
    });

    it('with nothing to flush, COMMIT goes on its own; with no statement at all, nothing is sent', async () => {
      expect(await roundTrips((tx) => tx.manager.query(`UPDATE games SET name = 'no-flush' WHERE id = $1`, [gameId]))).toBe(2);
      expect((await t.db.query(`SELECT 1 FROM games WHERE name = 'no-flush'`)).length).toBe(1);
      expect(await roundTrips(async () => undefined)).toBe(0);
    });

    it('a statement run twice is parsed once on its connection (a named prepared statement)', async () => {
      let parsed: Record<string, string> = {};
      await uow.run(async (tx) => {
        for (let i = 0; i < 2; i++) await tx.manager.query(`SELECT name FROM games WHERE id = $1`, [gameId]);
        parsed = (tx.manager.queryRunner as unknown as { databaseConnection: { connection: { parsedStatements: Record<string, string> } } })
          .databaseConnection.connection.parsedStatements;
      });
      expect(Object.values(parsed)).toContain(`SELECT name FROM games WHERE id = $1`);
    });

    it('a first statement that fails leaves no transaction open: the connection serves the next mutation', async () => {
      for (let i = 0; i < 12; i++) {
        await expect(uow.run((tx) => tx.manager.query(`SELECT 1 / $1::int`, [0]))).rejects.toThrow(/division by zero/);
      }
      // A connection left in its aborted transaction would fail every mutation it serves next.
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => uow.run((tx) => tx.manager.query(`UPDATE games SET name = $2 WHERE id = $1`, [gameId, `after-${i}`]))),
      );
      expect((await t.db.query(`SELECT 1 FROM games WHERE name LIKE 'after-%'`)).length).toBe(1);
    });

    it('a first statement the server cannot parse fails with its own error every time, on every connection', async () => {
      const errors = new Set<string>();
      for (let i = 0; i < 25; i++) {
        const err = await uow.run((tx) => tx.manager.query(`SELECT no_such_column + $1::int FROM games`, [1])).catch((e: Error) => e);
        errors.add((err as Error).message);
      }
      expect([...errors]).toEqual(['column "no_such_column" does not exist']);
    });

    it('a COMMIT that fails in the closing batch (a deferred constraint) rolls back, publishes nothing, and fails the mutation', async () => {
      await t.db.query(`CREATE TABLE IF NOT EXISTS uow_deferred (id int, CONSTRAINT uow_deferred_id UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)`);
      const before = published.length;
      const hooks: string[] = [];
      await expect(
        uow.run(async (tx) => {
          await tx.manager.query(`INSERT INTO uow_deferred VALUES ($1), ($1)`, [7]);
          tx.audit({ gameId, action: 'webhook.created', targetId: 'deferred-commit' });
          tx.emit({ type: 'group.created', gameId, groupId: gameId });
          tx.afterCommit(() => hooks.push('hook'));
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect(published.length).toBe(before);
      expect(hooks).toEqual([]);
      expect(await t.db.query(`SELECT 1 FROM uow_deferred`)).toHaveLength(0);
      expect(await t.db.query(`SELECT 1 FROM ${journalAudit()} WHERE target_id = 'deferred-commit'`)).toHaveLength(0);
      // Every pooled connection still works (none was left inside a transaction).
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => uow.run((tx) => tx.manager.query(`INSERT INTO uow_deferred VALUES ($1)`, [100 + i]))),
      );
      expect(await t.db.query(`SELECT 1 FROM uow_deferred`)).toHaveLength(20);
    });
  });

  it('after-commit hooks run once the transaction has committed', async () => {
    const order: string[] = [];
    await uow.run(async (tx) => {
      tx.afterCommit(() => order.push('hook'));
      order.push('work');
    });
    expect(order).toEqual(['work', 'hook']);
  });

  it('retries a serialization failure and succeeds', async () => {
    let attempts = 0;
    const result = await uow.run(async () => {
      attempts++;
      if (attempts === 1) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      return 'done';
    });
    expect(result).toBe('done');
    expect(attempts).toBe(2);
  });

  it('does not retry a foreign key violation, not even of a delivery row\'s endpoint', async () => {
    // The flush writes no delivery row since 1.9.0: an endpoint deleted under it fails nothing, so
    // that violation is no longer told apart; like any other it is the work's own error.
    for (const constraint of ['webhook_deliveries_endpoint_id_fkey', 'members_group_id_fkey']) {
      let attempts = 0;
      await expect(
        uow.run(async () => {
          attempts++;
          throw Object.assign(new Error('violates foreign key constraint'), { code: '23503', constraint });
        }),
      ).rejects.toMatchObject({ code: '23503', constraint });
      expect({ constraint, attempts }).toEqual({ constraint, attempts: 1 });
    }
  });

  it('retries a real deadlock between two transactions: both complete', async () => {
    const a = (await newGame(t, 'a')).gameId;
    const b = (await newGame(t, 'b')).gameId;
    const barrier = (() => {
      let n = 0;
      let release: () => void;
      const p = new Promise<void>((r) => (release = r));
      return () => (++n === 2 && release(), p);
    })();
    const lockBoth = (first: string, second: string) =>
      uow.run(async (tx) => {
        await tx.manager.query(`UPDATE games SET updated_at = now() WHERE id = $1`, [first]);
        await Promise.race([barrier(), new Promise((r) => setTimeout(r, 200))]);
        await tx.manager.query(`UPDATE games SET updated_at = now() WHERE id = $1`, [second]);
        return first;
      });
    await expect(Promise.all([lockBoth(a, b), lockBoth(b, a)])).resolves.toEqual([a, b]);
  });

  it('notifications are sent only on commit', async () => {
    const heard: string[] = [];
    const { Client } = await import('pg');
    const listener = new Client({ connectionString: t.db.url });
    await listener.connect();
    await listener.query('LISTEN svc_test_channel');
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    try {
      await uow.run(async (tx) => tx.notify('svc_test_channel', 'committed'));
      await uow.run(async (tx) => {
        tx.notify('svc_test_channel', 'rolled-back');
        throw new Error('no');
      }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toEqual(['committed']);
    } finally {
      await listener.end();
    }
  });
});

describe('identity anchors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('creates one internal user per (game, external id), and finds it afterwards', async () => {
    const { gameId } = await newGame(t);
    const ids = t.app.get(IdentityService);
    const uow = t.app.get(UnitOfWork);
    expect(await ids.find(t.app.get(DataSource).manager, gameId, 'alice')).toBeNull();
    const first = await uow.run((tx) => ids.resolveOrCreate(tx.manager, gameId, 'alice'));
    const again = await uow.run((tx) => ids.resolveOrCreate(tx.manager, gameId, 'alice'));
    expect(again).toBe(first);
    const other = await uow.run((tx) => ids.resolveOrCreate(tx.manager, gameId, 'bob'));
    expect(other).not.toBe(first);
  });

  it('the same external id in two games is two internal users', async () => {
    const ids = t.app.get(IdentityService);
    const uow = t.app.get(UnitOfWork);
    const a = (await newGame(t)).gameId;
    const b = (await newGame(t)).gameId;
    const inA = await uow.run((tx) => ids.resolveOrCreate(tx.manager, a, 'carol'));
    const inB = await uow.run((tx) => ids.resolveOrCreate(tx.manager, b, 'carol'));
    expect(inA).not.toBe(inB);
  });

  it('concurrent first references settle on one user, leaving no orphan user rows', async () => {
    const { gameId } = await newGame(t);
    const ids = t.app.get(IdentityService);
    const uow = t.app.get(UnitOfWork);
    const usersBefore = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users'))[0].n;
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        uow.run(async (tx) => {
          const id = await ids.resolveOrCreate(tx.manager, gameId, 'racer');
          await new Promise((r) => setTimeout(r, 20));
          return id;
        }),
      ),
    );
    expect(new Set(results).size).toBe(1);
    const usersAfter = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users'))[0].n;
    expect(usersAfter - usersBefore).toBe(1);
    const mappings = await t.db.query('SELECT * FROM user_identities WHERE game_id = $1', [gameId]);
    expect(mappings).toHaveLength(1);
  });
});
