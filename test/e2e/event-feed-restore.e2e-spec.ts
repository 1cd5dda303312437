import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { startNewEraIfRestored } from '../../src/db/feed-era';
import { joinOk, postGroup } from '../helpers/groups';
import { journalEvents } from '../helpers/journal';
import { sleep, withTimeout } from '../helpers/process';
import { openSse, type SseStream } from '../helpers/sse';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The feed across a restore (docs/event-feed.md, "After a restore"). A restore into another
 * cluster is modelled by moving the stored events' transaction ids ten million past the cluster's
 * own, as rows dumped from a cluster further on arrive; the real dump, base backup and version
 * move run in test/reliability/restore.rel-spec.ts. A database that went back in time (an event
 * sent is gone) is modelled by deleting that event.
 */

const streams: SseStream[] = [];
const apps: TestApp[] = [];
const dbs: TestDatabase[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  for (const a of apps.splice(0)) await a.close();
  for (const d of dbs.splice(0)) await d.drop();
});

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  dbs.push(db);
  return db;
}

async function app(db: TestDatabase, env: Record<string, string> = {}): Promise<{ t: TestApp; base: string }> {
  const t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false', ...env }, db);
  apps.push(t);
  await t.app.listen(0, '127.0.0.1');
  return { t, base: `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}` };
}

async function stop(t: TestApp): Promise<void> {
  apps.splice(apps.indexOf(t), 1);
  await t.close();
}

/** Every stored event as if dumped from a cluster ten million transactions further on. */
const restoreFromFurtherOn = async (db: TestDatabase) => {
  await db.query(`UPDATE journal SET xid = (xid::text::bigint + 10000000)::text::xid8`);
};

const era = async (db: TestDatabase) => (await db.query<{ era: number }>('SELECT era FROM feed_state'))[0].era;

/** The feed from `after` to its end: the event ids, in order (waits for events still behind the horizon). */
async function feedIds(t: TestApp, auth: Record<string, string>, count: number, after?: string): Promise<string[]> {
  const until = Date.now() + 15_000;
  for (;;) {
    const r = await t.http.get(`/v1/events/feed?limit=1000${after ? `&after=${after}` : ''}`).set(auth);
    expect(r.status).toBe(200);
    const ids = (r.body.items as { id: string }[]).map((e) => e.id);
    if (ids.length >= count || Date.now() > until) return ids;
    await sleep(25);
  }
}

async function busyGame(t: TestApp) {
  const g = await authedGame(t);
  const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Keepers', visibility: 'public' });
  for (const u of ['u1', 'u2', 'u3']) await joinOk(t, g.auth, group.id, u);
  return { ...g, groupId: group.id, ids: await feedIds(t, g.auth, 4) };
}

async function clients(db: TestDatabase, n: number): Promise<Client[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const c = new Client({ connectionString: db.url });
      await c.connect();
      return c;
    }),
  );
}

describe('a database restored from another cluster', () => {
  it('starts a new era on its first connection: the restored events keep their ids and order, new ones follow, a saved position resumes exactly once', async () => {
    const db = await database();
    const before = await app(db);
    const g = await busyGame(before.t);
    expect(g.ids).toHaveLength(4);
    await stop(before.t);
    await restoreFromFurtherOn(db);
    expect(await era(db)).toBe(1);

    const after = await app(db);
    expect(await era(db)).toBe(2);
    for (const u of ['n1', 'n2']) await joinOk(after.t, g.auth, g.groupId, u);
    const all = await feedIds(after.t, g.auth, 6);
    expect(all.slice(0, 4)).toEqual(g.ids);
    expect(all).toHaveLength(6);
    expect(await feedIds(after.t, g.auth, 4, g.ids[1])).toEqual(all.slice(2));
    const eras = await db.query<{ id: string; era: number }>(`SELECT id, era FROM ${journalEvents()} WHERE game_id = $1`, [g.gameId]);
    expect(eras.filter((r) => r.era === 1).map((r) => r.id).sort()).toEqual([...g.ids].sort());
    expect(eras.filter((r) => r.era === 2)).toHaveLength(2);

    // The streams resume from the same saved position, across the two eras, then go on live.
    const stream = await openSse(after.base, '/v1/events', { ...g.auth, 'last-event-id': g.ids[1] });
    streams.push(stream);
    await stream.waitFor(() => stream.ids().length === 4, 10_000, 'the replay across eras');
    await joinOk(after.t, g.auth, g.groupId, 'n3');
    await stream.waitFor(() => stream.ids().length === 5, 10_000, 'the live join');
    expect(stream.ids()).toEqual([...all.slice(2), ...(await feedIds(after.t, g.auth, 7)).slice(6)]);
  });

  it('an ordinary database never starts one, however many connections open', async () => {
    const db = await database();
    const { t } = await app(db, { DATABASE_POOL_MAX: '10' });
    const g = await busyGame(t);
    const cs = await clients(db, 6);
    try {
      expect(await Promise.all(cs.map((c) => startNewEraIfRestored(c)))).toEqual([1, 1, 1, 1, 1, 1]);
    } finally {
      await Promise.all(cs.map((c) => c.end()));
    }
    await Promise.all(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((u) => joinOk(t, g.auth, g.groupId, u)));
    expect(await era(db)).toBe(1);
  });

  it('connections that find it restored at the same moment start exactly one era', async () => {
    const db = await database();
    const { t } = await app(db);
    await busyGame(t);
    await restoreFromFurtherOn(db);
    const cs = await clients(db, 8);
    try {
      expect(await Promise.all(cs.map((c) => startNewEraIfRestored(c)))).toEqual(Array(8).fill(2));
    } finally {
      await Promise.all(cs.map((c) => c.end()));
    }
    expect(await era(db)).toBe(2);
    // The players' notifications are streamed in the same order: their era moves with the journal's
    // (EXTENSIONS X9).
    const defaults = await db.query<{ table: string; def: string }>(
      `SELECT d.adrelid::regclass::text AS table, pg_get_expr(d.adbin, d.adrelid) AS def FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
       WHERE d.adrelid IN ('notifications'::regclass, 'journal'::regclass) AND a.attname = 'era' ORDER BY 1`,
    );
    expect(defaults).toEqual([
      { table: 'journal', def: '2' },
      { table: 'notifications', def: '2' },
    ]);
  });

  it('waits for a transaction writing an event before the switch, and every insert after it gets the new era', async () => {
    const db = await database();
    const { t } = await app(db);
    const g = await busyGame(t);
    await restoreFromFurtherOn(db);
    const [writer, switcher] = await clients(db, 2);
    try {
      await writer.query('BEGIN');
      await writer.query(`INSERT INTO journal (id, game_id, type, body, names) VALUES ('00000000000000000000000100000000'::uuid, $1, 'member.joined', '{}', '{}')`, [g.gameId]);
      let switched = false;
      const switching = startNewEraIfRestored(switcher).then((e) => ((switched = true), e));
      await sleep(500);
      expect(switched).toBe(false);
      await writer.query('COMMIT');
      expect(await switching).toBe(2);
      await writer.query(`INSERT INTO journal (id, game_id, type, body, names) VALUES ('00000000000000000000000200000000'::uuid, $1, 'member.joined', '{}', '{}')`, [g.gameId]);
      const rows = await db.query<{ id: string; era: number }>(`SELECT id, era FROM ${journalEvents()} WHERE id LIKE '0000000000000000000000%' ORDER BY id`);
      expect(rows).toEqual([
        { id: '000000000000000000000001', era: 1 },
        { id: '000000000000000000000002', era: 2 },
      ]);
    } finally {
      await writer.end();
      await switcher.end();
    }
  });

  it('fails the connection rather than queue every write behind a transaction that keeps the journal for more than 5 s', async () => {
    const db = await database();
    const { t } = await app(db);
    await busyGame(t);
    await restoreFromFurtherOn(db);
    const [holder, switcher] = await clients(db, 2);
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT count(*) FROM journal');
      await expect(startNewEraIfRestored(switcher)).rejects.toMatchObject({ code: '55P03' });
      expect(await era(db)).toBe(1);
      await holder.query('COMMIT');
      expect(await startNewEraIfRestored(switcher)).toBe(2);
    } finally {
      await holder.end();
      await switcher.end();
    }
  }, 20_000);
});

describe('a database that went back in time under a running instance', () => {
  it('ends the streams that were sent an event it no longer holds; the client resumes from what it holds, 410 for the lost event', async () => {
    const db = await database();
    const { t, base } = await app(db);
    const g = await busyGame(t);
    const stream = await openSse(base, `/v1/events/${g.groupId}`, g.auth);
    streams.push(stream);
    await joinOk(t, g.auth, g.groupId, 'late');
    await stream.waitFor(() => stream.ids().length === 1, 10_000, 'the late join');
    const [lost] = stream.ids();
    await db.query(`DELETE FROM journal WHERE id = ($1 || '00000000')::uuid`, [lost]);
    await withTimeout(stream.ended, 5_000, () => 'the stream was not ended');

    const again = await openSse(base, `/v1/events/${g.groupId}`, { ...g.auth, 'last-event-id': lost });
    expect(again.status).toBe(410);
    expect(again.body?.code).toBe('events_expired');
    const resumed = await openSse(base, `/v1/events/${g.groupId}`, { ...g.auth, 'last-event-id': g.ids[1] });
    streams.push(resumed);
    await joinOk(t, g.auth, g.groupId, 'next');
    await resumed.waitFor(() => resumed.ids().length === 3, 10_000, 'the replay and the next join');
    expect(resumed.ids().slice(0, 2)).toEqual(g.ids.slice(2));
  });

  it('keeps a stream open when its last event leaves by the retention window', async () => {
    const db = await database();
    const { t, base } = await app(db, { EVENT_RETENTION_DAYS: '1' });
    const g = await busyGame(t);
    await db.query(`UPDATE journal SET created_at = now() - interval '2 days' WHERE game_id = $1`, [g.gameId]);
    const stream = await openSse(base, '/v1/events', g.auth);
    streams.push(stream);
    // As the hourly sweep would: the head the stream opened at is gone, stored before the window.
    await db.query(`DELETE FROM journal WHERE game_id = $1 AND action IS NULL`, [g.gameId]);
    await db.query(`UPDATE journal SET type = NULL, body = NULL, trace_context = NULL WHERE game_id = $1`, [g.gameId]);
    await sleep(2_500);
    let ended = false;
    void stream.ended.then(() => (ended = true));
    await sleep(0);
    expect(ended).toBe(false);
    await joinOk(t, g.auth, g.groupId, 'fresh');
    await stream.waitFor(() => stream.ids().length === 1, 10_000, 'the next join');
  });
});
