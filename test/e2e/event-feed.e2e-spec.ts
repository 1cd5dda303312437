import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { expectError } from '../helpers/errors';
import { postGroup, joinOk } from '../helpers/groups';
import { insertEventsSql, journalEvents } from '../helpers/journal';
import { openSse, type SseStream } from '../helpers/sse';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The game's event feed (pull pages) and the game's stream (SSE), with `after` resumption, the
 * retention window's 410, and the horizon that keeps a late-committing transaction from being
 * skipped. Everything against the real database.
 */
let t: TestApp;
let base: string;
const streams: SseStream[] = [];

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  await t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});
afterAll(() => t.close());

type Auth = Record<string, string>;
const feed = (auth: Auth, query = '') => t.http.get(`/v1/events/feed${query}`).set(auth);
const sse = async (path: string, headers: Record<string, string>) => {
  const s = await openSse(base, path, headers);
  streams.push(s);
  return s;
};
/**
 * The feed once it shows `count` items: an event joins it when every transaction that started
 * before its own has ended, anywhere on the database server (other test files included).
 */
async function settled(auth: Auth, query: string, count: number) {
  const until = Date.now() + 15_000;
  for (;;) {
    const r = await feed(auth, query);
    if (r.status !== 200 || r.body.items.length >= count || Date.now() > until) return r;
    await new Promise((ok) => setTimeout(ok, 25));
  }
}
const outboxIds = async (gameId: string) =>
  (await t.db.query<{ id: string }>(`SELECT id FROM ${journalEvents()} WHERE game_id = $1 ORDER BY era, xid, seq`, [gameId])).map((r) => r.id);

/** A game with a public group, a few joins and a game-wide ban: 1 + 3 + 1 events. */
async function busyGame() {
  const g = await authedGame(t);
  const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Knights', visibility: 'public' });
  for (const u of ['u1', 'u2', 'u3']) await joinOk(t, g.auth, group.id, u);
  const ban = await t.http.post('/v1/bans').set(g.auth).send({ userId: 'cheater', reason: 'aimbot' });
  expect(ban.status).toBe(201);
  const ids = await outboxIds(g.gameId);
  await settled(g.auth, '', ids.length);
  return { ...g, groupId: group.id, ids };
}

describe('GET /v1/events/feed', () => {
  it('pages every event of the game, group- and user-scoped, in order, bodies as stored for webhooks', async () => {
    const g = await busyGame();
    expect(g.ids).toHaveLength(5);
    const r = await settled(g.auth, '', 5);
    expect(r.status).toBe(200);
    expect(r.body.items.map((e: { id: string }) => e.id)).toEqual(g.ids);
    expect(r.body.items.map((e: { type: string }) => e.type)).toEqual(['group.created', 'member.joined', 'member.joined', 'member.joined', 'game.user.banned']);
    const stored = await t.db.query<{ body: unknown }>(`SELECT body FROM ${journalEvents()} WHERE game_id = $1 ORDER BY era, xid, seq`, [g.gameId]);
    expect(r.body.items).toEqual(stored.map((s) => s.body));
    expect(r.body.nextAfter).toBe(g.ids[4]);
  });

  it('follows nextAfter page by page; an empty page answers the after given, or null without one', async () => {
    const g = await busyGame();
    await settled(g.auth, '', 5);
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 3; i++) {
      const r = await feed(g.auth, `?limit=2${after ? `&after=${after}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.items.map((e: { id: string }) => e.id));
      after = r.body.nextAfter;
    }
    expect(seen).toEqual(g.ids);
    const empty = await feed(g.auth, `?after=${after}`);
    expect(empty.body).toEqual({ items: [], nextAfter: g.ids[4] });
    const other = await authedGame(t);
    expect((await feed(other.auth)).body).toEqual({ items: [], nextAfter: null });
  });

  it('filters by types; an unknown type is 400 naming types', async () => {
    const g = await busyGame();
    const r = await settled(g.auth, '?types=member.joined,game.user.banned', 4);
    expect(r.body.items.map((e: { type: string }) => e.type)).toEqual(['member.joined', 'member.joined', 'member.joined', 'game.user.banned']);
    for (const bad of ['member.joined,member.exploded', '', 'member.joined,']) {
      const e = await feed(g.auth, `?types=${bad}`);
      expectError(e, 400, 'bad_request');
      expect(e.body.message).toMatch(/^types/);
    }
  });

  it.each(['0', '1001', '-1', '1.5', 'ten'])('limit=%s is 400 naming limit; 1 and 1000 are fine', async (limit) => {
    const g = await busyGame();
    const r = await feed(g.auth, `?limit=${limit}`);
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toMatch(/limit/);
    expect((await feed(g.auth, '?limit=1')).body.items).toHaveLength(1);
    expect((await settled(g.auth, '?limit=1000', 5)).body.items).toHaveLength(5);
  });

  it('a malformed after is 400 naming after; an unknown, another game\'s or an expired id is 410 events_expired', async () => {
    const g = await busyGame();
    const other = await busyGame();
    const bad = await feed(g.auth, '?after=nope');
    expectError(bad, 400, 'bad_request');
    expect(bad.body.message).toMatch(/^after/);
    expectError(await feed(g.auth, `?after=${'0'.repeat(24)}`), 410, 'events_expired');
    expectError(await feed(g.auth, `?after=${other.ids[0]}`), 410, 'events_expired');
    await t.db.query(`UPDATE journal SET created_at = now() - interval '8 days' WHERE id = ($1 || '00000000')::uuid`, [g.ids[0]]);
    expectError(await feed(g.auth, `?after=${g.ids[0]}`), 410, 'events_expired');
    // The expired event is no longer served either, so a reader starting over never meets it again.
    expect((await settled(g.auth, '', 4)).body.items.map((e: { id: string }) => e.id)).toEqual(g.ids.slice(1));
  });

  it('orders by number across a change of digit count (9999 then 10000), in the page and the stream alike', async () => {
    const g = await authedGame(t);
    const stream = await sse('/v1/events', g.auth);
    await t.db.query(`SELECT setval(pg_get_serial_sequence('journal', 'seq'), 9998)`);
    // One transaction, two events: sequence numbers 9999 and 10000, which sort the other way as text.
    await postGroup(t, g.auth, { kind: 'guild', name: 'Digits', visibility: 'public', creatorUserId: 'founder' });
    const rows = await t.db.query<{ id: string; seq: string }>(`SELECT id, seq::text AS seq FROM ${journalEvents()} WHERE game_id = $1 ORDER BY e.seq`, [g.gameId]);
    expect(rows.map((x) => x.seq)).toEqual(['9999', '10000']);
    const r = await settled(g.auth, '', 2);
    expect(r.body.items.map((e: { id: string }) => e.id)).toEqual(rows.map((x) => x.id));
    await stream.waitFor(() => stream.ids().length === 2, 10_000, 'both events');
    expect(stream.ids()).toEqual(r.body.items.map((e: { id: string }) => e.id));
  });

  it('never shows another game\'s events', async () => {
    const a = await busyGame();
    const b = await busyGame();
    const ids = (await settled(b.auth, '?limit=1000', 5)).body.items.map((e: { id: string; gameId: string }) => e.id);
    expect(ids).toEqual(b.ids);
    expect(ids.some((id: string) => a.ids.includes(id))).toBe(false);
  });

  it('requires the game key', async () => {
    expectError(await t.http.get('/v1/events/feed'), 401, 'invalid_api_key');
  });
});

describe('the horizon: a transaction that commits late is never skipped', () => {
  /** An event staged as the unit of work stages it, in a transaction left open. */
  async function openTransaction(gameId: string, id: string): Promise<Client> {
    const c = new Client({ connectionString: t.db.url });
    c.on('error', () => undefined);
    await c.connect();
    await c.query('BEGIN');
    await c.query(
      insertEventsSql(
        `SELECT $1::text, $2::uuid, NULL::uuid, 'game.user.banned',
                jsonb_build_object('id', $1::text, 'type', 'game.user.banned', 'gameId', $2::text, 'occurredAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`,
      ),
      [id, gameId],
    );
    await c.query(`SELECT pg_notify('svc_events', $1)`, [gameId]);
    return c;
  }

  it('events committed after an older open transaction wait for it, then come after its own', async () => {
    const g = await authedGame(t);
    const held = await openTransaction(g.gameId, 'feedfeedfeedfeedfeed0001');
    try {
      const stream = await sse('/v1/events', g.auth);
      await postGroup(t, g.auth, { kind: 'guild', name: 'Late', visibility: 'public' });
      const [created] = await outboxIds(g.gameId);
      // Committed, but behind a transaction that is still open: neither the feed nor the stream shows it yet.
      await new Promise((r) => setTimeout(r, 300));
      expect((await feed(g.auth)).body.items).toEqual([]);
      expect(stream.ids()).toEqual([]);
      await held.query('COMMIT');
      await stream.waitFor(() => stream.ids().length === 2, 10_000, 'both events');
      expect(stream.ids()).toEqual(['feedfeedfeedfeedfeed0001', created]);
      expect((await settled(g.auth, '', 2)).body.items.map((e: { id: string }) => e.id)).toEqual(['feedfeedfeedfeedfeed0001', created]);
    } finally {
      await held.end();
    }
  });

  it('a transaction open in another database on the same server does not hold the feed back', async () => {
    const g = await authedGame(t);
    const elsewhere = new Client({ connectionString: process.env.GH_TEST_SERVER_URL });
    elsewhere.on('error', () => undefined);
    await elsewhere.connect();
    try {
      await elsewhere.query('BEGIN');
      await elsewhere.query('SELECT pg_current_xact_id()');
      await postGroup(t, g.auth, { kind: 'guild', name: 'Not held', visibility: 'public' });
      expect((await settled(g.auth, '', 1)).body.items).toHaveLength(1);
    } finally {
      await elsewhere.query('ROLLBACK').catch(() => undefined);
      await elsewhere.end();
    }
  });

  it('an event of a rolled-back transaction never appears; those behind it then do', async () => {
    const g = await authedGame(t);
    const held = await openTransaction(g.gameId, 'feedfeedfeedfeedfeed0002');
    try {
      const stream = await sse('/v1/events', g.auth);
      await postGroup(t, g.auth, { kind: 'guild', name: 'After rollback', visibility: 'public' });
      await held.query('ROLLBACK');
      await stream.waitFor(() => stream.ids().length === 1, 10_000, 'the committed event');
      const ids = await outboxIds(g.gameId);
      expect(stream.ids()).toEqual(ids);
      expect((await settled(g.auth, '', 1)).body.items.map((e: { id: string }) => e.id)).toEqual(ids);
    } finally {
      await held.end();
    }
  });
});

describe('GET /v1/events (the game\'s stream)', () => {
  it('without after: live only, every event of the game (user-scoped too), frames as the group stream', async () => {
    const g = await busyGame();
    const s = await sse('/v1/events', g.auth);
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toMatch(/^text\/event-stream/);
    await joinOk(t, g.auth, g.groupId, 'u4');
    await t.http.delete('/v1/bans/cheater').set(g.auth).expect(204);
    await s.waitFor(() => s.ids().length === 2, 10_000, 'two live events');
    const ids = await outboxIds(g.gameId);
    expect(s.ids()).toEqual(ids.slice(5));
    const frames = s.frames.filter((f) => f.data !== undefined);
    expect(frames.map((f) => f.event)).toEqual(['member.joined', 'game.user.unbanned']);
    // Before them, with no data, the id of the game's last event when the stream began.
    expect(s.frames.filter((f) => f.id !== undefined && f.data === undefined).map((f) => f.id)).toEqual([ids[4]]);
    const stored = await t.db.query<{ body: unknown }>(`SELECT body FROM ${journalEvents()} WHERE id = $1`, [frames[1].id]);
    expect(JSON.parse(frames[1].data!)).toEqual(stored[0].body);
  });

  it('a client that drops before its first event resumes after the opening id and misses nothing', async () => {
    const g = await busyGame();
    const first = await sse('/v1/events', g.auth);
    await first.waitFor(() => first.frames.some((f) => f.id !== undefined), 10_000, 'the opening id');
    const opening = first.frames.find((f) => f.id !== undefined)!;
    expect([opening.id, opening.event, opening.data]).toEqual([g.ids[4], undefined, undefined]);
    first.close();
    // While no connection is open, two events commit.
    await joinOk(t, g.auth, g.groupId, 'u5');
    await t.http.delete('/v1/bans/cheater').set(g.auth).expect(204);
    const resumed = await sse(`/v1/events?after=${opening.id}`, g.auth);
    await resumed.waitFor(() => resumed.ids().length === 2, 10_000, 'the two events of the gap');
    expect(resumed.ids()).toEqual((await outboxIds(g.gameId)).slice(5));
    resumed.close();
  });

  it('a game without events opens its stream with no id; the first event then carries one', async () => {
    const g = await authedGame(t);
    const s = await sse('/v1/events', g.auth);
    await postGroup(t, g.auth, { kind: 'guild', name: 'First', visibility: 'public' });
    await s.waitFor(() => s.ids().length === 1, 10_000, 'group.created');
    expect(s.frames.filter((f) => f.id !== undefined)).toHaveLength(1);
    s.close();
  });

  it('with after (query or Last-Event-ID): the retained events after it, then live, each once', async () => {
    const g = await busyGame();
    const byQuery = await sse(`/v1/events?after=${g.ids[1]}`, g.auth);
    const byHeader = await sse('/v1/events', { ...g.auth, 'last-event-id': g.ids[2] });
    await byQuery.waitFor(() => byQuery.ids().length === 3, 10_000, 'the replay');
    await joinOk(t, g.auth, g.groupId, 'u5');
    const all = await outboxIds(g.gameId);
    await byQuery.waitFor(() => byQuery.ids().length === 4, 10_000, 'the live event');
    await byHeader.waitFor(() => byHeader.ids().length === 3, 10_000, 'replay and live');
    expect(byQuery.ids()).toEqual(all.slice(2));
    expect(byHeader.ids()).toEqual(all.slice(3));
  });

  it('types filters the replay and the live events', async () => {
    const g = await busyGame();
    const s = await sse(`/v1/events?after=${g.ids[0]}&types=game.user.banned,game.user.unbanned`, g.auth);
    await t.http.delete('/v1/bans/cheater').set(g.auth).expect(204);
    await joinOk(t, g.auth, g.groupId, 'u6');
    await s.waitFor(() => s.ids().length === 2, 10_000, 'the ban events');
    await new Promise((r) => setTimeout(r, 200));
    expect(s.frames.filter((f) => f.id).map((f) => f.event)).toEqual(['game.user.banned', 'game.user.unbanned']);
  });

  it('handshake errors come before any SSE header: 410 events_expired, 400 for types and a bad Last-Event-ID, 401', async () => {
    const g = await busyGame();
    const other = await busyGame();
    for (const [path, headers, status, code] of [
      [`/v1/events?after=${other.ids[0]}`, g.auth, 410, 'events_expired'],
      ['/v1/events', { ...g.auth, 'last-event-id': '0'.repeat(24) }, 410, 'events_expired'],
      ['/v1/events?types=nope', g.auth, 400, 'bad_request'],
      ['/v1/events', { ...g.auth, 'last-event-id': 'x' }, 400, 'bad_request'],
      ['/v1/events', {}, 401, 'invalid_api_key'],
    ] as const) {
      const s = await sse(path, headers);
      expect({ path, status: s.status, code: s.body?.code }).toEqual({ path, status, code });
      expect(s.headers['content-type']).toMatch(/^application\/json/);
      expect(s.frames).toEqual([]);
    }
  });
});

describe('GET /v1/events/:groupId?after=', () => {
  it('replays that group\'s events after the id, then goes live; /v1/events/feed is not taken for a group id', async () => {
    const g = await busyGame();
    const second = await postGroup(t, g.auth, { kind: 'guild', name: 'Other', visibility: 'public' });
    await joinOk(t, g.auth, second.id, 'x1');
    const s = await sse(`/v1/events/${g.groupId}?after=${g.ids[0]}`, g.auth);
    await s.waitFor(() => s.ids().length === 3, 10_000, 'the group replay');
    await joinOk(t, g.auth, second.id, 'x2');
    await joinOk(t, g.auth, g.groupId, 'u7');
    await s.waitFor(() => s.ids().length === 4, 10_000, 'the live event');
    const groupIds = (
      await t.db.query<{ id: string }>(`SELECT id FROM ${journalEvents()} WHERE group_id = $1 ORDER BY era, xid, seq`, [g.groupId])
    ).map((r) => r.id);
    expect(s.ids()).toEqual(groupIds.slice(1));
    const expired = await sse(`/v1/events/${g.groupId}?after=${'f'.repeat(24)}`, g.auth);
    expect(expired.status).toBe(410);
    expect(expired.body?.code).toBe('events_expired');
  });
});
