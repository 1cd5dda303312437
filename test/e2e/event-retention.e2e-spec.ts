import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { expireJournalEvents } from '../../src/sweeper/journal-expiry';
import { SweeperService } from '../../src/sweeper/sweeper.service';
import { expectError } from '../helpers/errors';
import { insertEventsSql } from '../helpers/journal';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Retention of the event feed (EVENT_RETENTION_DAYS, here 2): the sweeper removes older events in
 * batches, each its own short statement that waits for no lock; the feed refuses to resume from
 * an expired event (410) and no longer serves it.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ EVENT_RETENTION_DAYS: '2', WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => t.close());

/** `n` events of the game, `daysAgo` old, with ids `<prefix><counter>` (hex), in the journal as the service writes them. */
async function insertEvents(gameId: string, n: number, daysAgo: number, prefix: string): Promise<string[]> {
  const rows = await t.db.query<{ id: string }>(
    insertEventsSql(
      `SELECT k.id, $1::uuid, NULL::uuid, 'game.user.banned',
              jsonb_build_object('id', k.id, 'type', 'game.user.banned', 'gameId', $1::text,
                                 'occurredAt', to_char(k.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
              k.at
       FROM generate_series(1, $2::int) AS i
       CROSS JOIN LATERAL (SELECT $3 || lpad(to_hex(i), 24 - length($3), '0') AS id, now() - $4::float8 * interval '1 day' AS at) k`,
      true,
    ),
    [gameId, n, prefix, daysAgo],
  );
  return rows.map((r) => r.id);
}

/** The game's events the journal still holds. */
const remaining = async (gameId: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM journal WHERE game_id = $1 AND type IS NOT NULL`, [gameId]))[0].n;

it('expires the events older than the window in batches, keeping the recent ones', async () => {
  const g = await authedGame(t);
  await insertEvents(g.gameId, 2500, 3, 'a0');
  await insertEvents(g.gameId, 3, 1, 'b0');
  const result = await expireJournalEvents(t.app.get(DataSource).manager, 2, 1000);
  expect(result).toEqual({ expired: 2500, batches: 4 });
  expect(await remaining(g.gameId)).toBe(3);
});

it('the hourly sweep applies EVENT_RETENTION_DAYS', async () => {
  const g = await authedGame(t);
  await insertEvents(g.gameId, 10, 2.5, 'c0');
  await insertEvents(g.gameId, 4, 1.5, 'd0');
  const r = await t.app.get(SweeperService).sweep();
  expect(r).toMatchObject({ swept: true });
  expect(r.eventsExpired).toBeGreaterThanOrEqual(10);
  expect(await remaining(g.gameId)).toBe(4);
});

it('a row held by another transaction is skipped, not waited for, and goes at the next sweep', async () => {
  const g = await authedGame(t);
  const [locked, ...others] = await insertEvents(g.gameId, 20, 3, 'e0');
  const c = new Client({ connectionString: t.db.url });
  c.on('error', () => undefined);
  await c.connect();
  try {
    await c.query('BEGIN');
    await c.query(`SELECT 1 FROM journal WHERE id = ($1 || '00000000')::uuid FOR UPDATE`, [locked]);
    const started = Date.now();
    await t.app.get(SweeperService).sweep();
    expect(Date.now() - started).toBeLessThan(5_000);
    const left = await t.db.query<{ id: string }>(`SELECT left(replace(id::text, '-', ''), 24) AS id FROM journal WHERE game_id = $1 AND type IS NOT NULL`, [g.gameId]);
    expect(left.map((r) => r.id)).toEqual([locked]);
    expect(others).toHaveLength(19);
    await c.query('COMMIT');
    await t.app.get(SweeperService).sweep();
    expect(await remaining(g.gameId)).toBe(0);
  } finally {
    await c.end();
  }
});

it('an event past the window, swept or not, is 410 events_expired as after, and no longer served', async () => {
  const g = await authedGame(t);
  const [old] = await insertEvents(g.gameId, 1, 2.1, 'f0');
  const [recent] = await insertEvents(g.gameId, 1, 1.9, 'f1');
  expectError(await t.http.get(`/v1/events/feed?after=${old}`).set(g.auth), 410, 'events_expired');
  const r = await t.http.get('/v1/events/feed').set(g.auth);
  expect(r.body.items.map((e: { id: string }) => e.id)).toEqual([recent]);
  expect((await t.http.get(`/v1/events/feed?after=${recent}`).set(g.auth)).body).toEqual({ items: [], nextAfter: recent });
});

it('expires the events only the journal holds (as a release writing the journal alone leaves them): one with an audit entry keeps the entry alone, one without goes', async () => {
  const g = await authedGame(t);
  const [withAudit, alone, recent] = ['da', 'db', 'dc'].map((k) => `${k}${'0'.repeat(22)}`);
  const write = (id: string, daysAgo: number, action: string | null) =>
    t.db.query(
      `INSERT INTO journal (id, game_id, created_at, action, payload, type, body, names)
       VALUES (($1 || '00000000')::uuid, $2, now() - $3::float8 * interval '1 day', $4, CASE WHEN $4::text IS NOT NULL THEN '{}'::jsonb END,
               'game.user.banned', jsonb_build_object('id', $1::text, 'type', 'game.user.banned', 'gameId', $2::uuid::text,
                 'occurredAt', to_char((now() - $3::float8 * interval '1 day') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), '{}')`,
      [id, g.gameId, daysAgo, action],
    );
  await write(withAudit, 3, 'game.user.banned');
  await write(alone, 3, null);
  await write(recent, 1, null);

  const r = await t.app.get(SweeperService).sweep();
  expect(r.eventsExpired).toBeGreaterThanOrEqual(2);
  const rows = await t.db.query<{ id: string; action: string | null; type: string | null; body: unknown }>(
    `SELECT left(replace(id::text, '-', ''), 24) AS id, action, type, body FROM journal WHERE game_id = $1 ORDER BY id`,
    [g.gameId],
  );
  expect(rows).toEqual([
    { id: withAudit, action: 'game.user.banned', type: null, body: null },
    { id: recent, action: null, type: 'game.user.banned', body: expect.objectContaining({ id: recent, type: 'game.user.banned' }) },
  ]);
  expect((await t.http.get('/v1/events/feed').set(g.auth)).body.items.map((e: { id: string }) => e.id)).toEqual([recent]);
});
