import { Client } from 'pg';
import { SweeperService } from '../../src/sweeper/sweeper.service';
import { newGame, startTestApp, type TestApp } from '../helpers/test-app';

describe('hourly sweeper', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('removes outbox events older than the retention window and keeps recent ones', async () => {
    const { gameId } = await newGame(t);
    await t.db.query(
      `INSERT INTO outbox_events (id, game_id, type, body, created_at) VALUES
         ('aaaaaaaaaaaaaaaaaaaaaaaa', $1, 'group.created', '{}', now() - interval '8 days'),
         ('bbbbbbbbbbbbbbbbbbbbbbbb', $1, 'group.created', '{}', now() - interval '6 days')`,
      [gameId],
    );
    const result = await t.app.get(SweeperService).sweep();
    expect(result).toEqual({ swept: true, groupsRemoved: 0, outboxEventsRemoved: 1, webhookDeliveriesRemoved: 0, previousSecretsCleared: 0 });
    const left = await t.db.query<{ id: string }>(`SELECT id FROM outbox_events WHERE game_id = $1`, [gameId]);
    expect(left.map((r) => r.id)).toEqual(['bbbbbbbbbbbbbbbbbbbbbbbb']);
  });

  it('skips the tick while another instance holds the sweep lock', async () => {
    const other = new Client({ connectionString: t.db.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_advisory_xact_lock(7310422002)');
      await expect(t.app.get(SweeperService).sweep()).resolves.toEqual({ swept: false, groupsRemoved: 0, outboxEventsRemoved: 0, webhookDeliveriesRemoved: 0, previousSecretsCleared: 0 });
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
});
