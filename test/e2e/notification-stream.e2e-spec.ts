import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { uuidv7 } from '../../src/common/ids';
import { StreamStats } from '../../src/events/stream-stats';
import { NotificationStreams } from '../../src/notifications/notification-streams';
import { friendsClient, sendPending, svcId } from '../helpers/friends';
import { joinOk, postGroup } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { invite, notificationFrames, notificationsOn, openNotificationStream, readsOn } from '../helpers/notification-stream';
import { notificationsOf, notificationsPath } from '../helpers/notifications';
import type { SseStream } from '../helpers/sse';
import { authedGame, bearer, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * A player's notification stream (EXTENSIONS X9), end to end over a real socket: the handshake
 * (auth, 400 naming the field, 410 events_expired for a resume id not kept), `notification` frames
 * as the group stream frames events, `notifications.read` frames for marks made by other requests,
 * the resume by Last-Event-ID or `after` without a gap or a repeat, the horizon that keeps a
 * notification committed late from being skipped, and the end of the streams (shutdown, and a lost
 * LISTEN connection). The two-instance case is in notification-stream-scale-out.e2e-spec.ts.
 */
jest.setTimeout(30_000);

type Auth = Record<string, string>;
const ENV = { WEBHOOK_WORKER_ENABLED: 'false' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let base: string;
let gameId: string;
let auth: Auth;
let groupId: string;
const streams: SseStream[] = [];

beforeAll(async () => {
  t = await startTestApp(ENV);
  await t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  ({ gameId, auth } = await authedGame(t, 'notification streams'));
  groupId = (await postGroup(t, auth, { kind: 'guild', name: 'Night Watch', visibility: 'public' })).id;
});
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});
afterAll(() => t.close());

const stream = async (userId: string, headers: Record<string, string> = auth, query = '', at = base) => {
  const s = await openNotificationStream(at, userId, headers, query);
  streams.push(s);
  return s;
};
/** A player the game knows (they joined a group), with `count` invitation.received notifications; their ids, oldest first. */
async function player(count = 0, g = groupId): Promise<{ userId: string; ids: string[] }> {
  const userId = uid('p');
  await joinOk(t, auth, (await postGroup(t, auth, { kind: 'guild', name: 'lobby', visibility: 'public' })).id, userId);
  for (let i = 0; i < count; i++) await invite(t, auth, g, userId);
  return { userId, ids: (await notificationsOf(t, auth, userId)).map((n) => n.id).reverse() };
}
const idsOf = async (userId: string) => (await notificationsOf(t, auth, userId)).map((n) => n.id).reverse();
const idOnly = (s: SseStream) => s.frames.filter((f) => f.id !== undefined && f.data === undefined).map((f) => f.id);
const markRead = async (userId: string, body: object) => {
  const r = await t.http.post(`${notificationsPath(userId)}/read`).set(auth).send(body);
  if (r.status !== 200) throw new Error(`read: ${r.status} ${r.text}`);
  return r.body as { marked: number };
};

function expectEnvelope(s: SseStream, status: number, code: string): void {
  expect({ status: s.status, code: s.body?.code }).toEqual({ status, code });
  expect(s.body).toMatchObject({ status, message: expect.any(String) });
  expect(s.headers['content-type']).toMatch(/^application\/json/);
  expect(s.headers['x-request-id']).toEqual(expect.any(String));
  expect(s.frames).toEqual([]);
}

describe('handshake', () => {
  it('401 invalid_api_key without a key or with a wrong one', async () => {
    expectEnvelope(await stream('anyone', {}), 401, 'invalid_api_key');
    expectEnvelope(await stream('anyone', bearer('jk_0000000000.wrong-secret')), 401, 'invalid_api_key');
  });

  it('200: text/event-stream, no caching, the x-request-id header (a caller\'s id kept), for a player the game has never seen too', async () => {
    const s = await stream(uid('never'));
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toMatch(/^text\/event-stream\b/);
    expect(s.headers['cache-control']).toMatch(/no-cache/);
    expect(s.headers['x-request-id']).toMatch(/^.+$/);
    const traced = await stream(uid('never'), { ...auth, 'x-request-id': 'trace-notif.1' });
    expect(traced.headers['x-request-id']).toBe('trace-notif.1');
  });

  it('400 naming after or Last-Event-ID for a resume id that is no notification id, userId for one holding NUL; after wins over the header', async () => {
    const { userId, ids } = await player(1);
    const byQuery = await stream(userId, auth, '?after=nope');
    expectEnvelope(byQuery, 400, 'bad_request');
    expect(byQuery.body?.message).toMatch(/^after /);
    const byHeader = await stream(userId, { ...auth, 'last-event-id': '019a7c3e5f10a1b2c3d4e5f6' });
    expectEnvelope(byHeader, 400, 'bad_request');
    expect(byHeader.body?.message).toMatch(/^Last-Event-ID /);
    const nul = await stream('bad\u0000id');
    expectEnvelope(nul, 400, 'bad_request');
    expect(nul.body?.message).toMatch(/^userId /);
    // A good after is used, the bad header never read.
    expect((await stream(userId, { ...auth, 'last-event-id': 'nope' }, `?after=${ids[0]}`)).status).toBe(200);
  });

  it("410 events_expired for a resume id not kept: unknown, another player's, another game's, dismissed", async () => {
    const { userId, ids } = await player(2);
    const other = await player(1);
    const elsewhere = await authedGame(t, 'elsewhere');
    const g2 = await postGroup(t, elsewhere.auth, { kind: 'guild', name: 'Far', visibility: 'public' });
    await joinOk(t, elsewhere.auth, g2.id, userId);
    await invite(t, elsewhere.auth, g2.id, userId);
    const [foreign] = await notificationsOf(t, elsewhere.auth, userId);
    expect((await t.http.delete(`${notificationsPath(userId)}/${ids[0]}`).set(auth)).status).toBe(204);

    for (const id of [uuidv7(), other.ids[0], foreign.id, ids[0]]) {
      expectEnvelope(await stream(userId, auth, `?after=${id}`), 410, 'events_expired');
      expectEnvelope(await stream(userId, { ...auth, 'last-event-id': id }), 410, 'events_expired');
    }
    // A player the game has never seen keeps no notification at all.
    expectEnvelope(await stream(uid('never'), auth, `?after=${ids[1]}`), 410, 'events_expired');
    expect((await stream(userId, auth, `?after=${ids[1]}`)).status).toBe(200);
  });
});

describe('notification frames', () => {
  it('each new notification is one frame: `id: <notification id>`, `event: notification`, `data: <the Notification>`, as the list has it', async () => {
    const { userId, ids } = await player(1);
    const s = await stream(userId);
    const other = await player();
    const otherStream = await stream(other.userId);
    await invite(t, auth, groupId, other.userId);
    await invite(t, auth, groupId, userId);
    await s.waitFor(() => notificationFrames(s).length === 1, 10_000, 'the invitation');
    await otherStream.waitFor(() => notificationFrames(otherStream).length === 1, 10_000, "the other player's invitation");

    const [listed] = await notificationsOf(t, auth, userId);
    const [frame] = notificationFrames(s);
    expect(frame).toEqual({ id: listed.id, event: 'notification', data: JSON.stringify(listed), comments: [] });
    expect(listed).toMatchObject({ id: expect.stringMatching(UUID), kind: 'invitation.received', userId, groupId, readAt: null });
    // First the id-only frame naming the player's last notification; nothing of the other player's.
    expect(idOnly(s)).toEqual([ids[0]]);
    expect(s.frames.filter((f) => f.data !== undefined)).toEqual([frame]);
    expect(notificationsOn(otherStream).map((n) => n.userId)).toEqual([other.userId]);
  });

  it('comes in commit order, to every stream of the player, each once', async () => {
    const { userId } = await player();
    const [a, b] = [await stream(userId), await stream(userId)];
    expect(idOnly(a)).toEqual([]);
    for (let i = 0; i < 5; i++) await invite(t, auth, groupId, userId);
    await a.waitFor(() => notificationFrames(a).length === 5, 10_000, 'five invitations');
    await b.waitFor(() => notificationFrames(b).length === 5, 10_000, 'five invitations');
    await sleep(200);
    const ids = await idsOf(userId);
    expect(a.ids()).toEqual(ids);
    expect(b.ids()).toEqual(ids);
  });

  it("reaches a player the game had never seen when the stream opened: their first notification", async () => {
    const newcomer = uid('newcomer');
    const s = await stream(newcomer);
    await sendPending(friendsClient(t, gameId, auth.authorization.slice('Bearer '.length)), uid('sender'), newcomer);
    await s.waitFor(() => notificationFrames(s).length === 1, 10_000, 'the friend request');
    expect(notificationsOn(s)).toEqual(await notificationsOf(t, auth, newcomer));
    expect(notificationsOn(s)[0].kind).toBe('friend.request.received');
  });

  it('a stream an instant after its headers gets a notification committed right then (no pause between them)', async () => {
    const { userId } = await player();
    for (let i = 1; i <= 5; i++) {
      const s = await stream(userId);
      await invite(t, auth, groupId, userId);
      await s.waitFor(() => notificationFrames(s).length === 1, 5_000, `invitation ${i}`);
      s.close();
    }
  });
});

describe('read frames', () => {
  it('marks by ids made by another request reach the stream as `event: notifications.read` with { ids }, no id', async () => {
    const { userId, ids } = await player(3);
    const s = await stream(userId);
    const other = await player(1);
    const otherStream = await stream(other.userId);
    expect(await markRead(userId, { ids: [ids[0], ids[2], other.ids[0]] })).toEqual({ marked: 2 });
    await s.waitFor(() => readsOn(s).length === 1, 10_000, 'the read frame');
    expect((readsOn(s) as { ids: string[] }[]).map((r) => [...r.ids].sort())).toEqual([[ids[0], ids[2]].sort()]);
    const frame = s.frames.find((f) => f.event === 'notifications.read')!;
    expect(frame.id).toBeUndefined();
    // Marked again: nothing was unread, no frame.
    expect(await markRead(userId, { ids: [ids[0]] })).toEqual({ marked: 0 });
    expect(await markRead(userId, { all: true })).toEqual({ marked: 1 });
    await s.waitFor(() => readsOn(s).length === 2, 10_000, 'the read-all frame');
    const [, all] = readsOn(s) as [unknown, { all: boolean; before: string }];
    expect(all).toEqual({ all: true, before: expect.any(String) });
    const [newest] = await notificationsOf(t, auth, userId);
    expect(Date.parse(all.before)).toBeGreaterThanOrEqual(Date.parse(newest.readAt!));
    await sleep(200);
    expect(readsOn(s)).toHaveLength(2);
    expect(readsOn(otherStream)).toEqual([]);
  });

  it('a notification dismissed unread counts as read on every screen', async () => {
    const { userId, ids } = await player(1);
    const s = await stream(userId);
    expect((await t.http.delete(`${notificationsPath(userId)}/${ids[0]}`).set(auth)).status).toBe(204);
    await s.waitFor(() => readsOn(s).length === 1, 10_000, 'the read frame');
    expect(readsOn(s)).toEqual([{ ids: [ids[0]] }]);
  });

  it('the read frame of a notification comes after the notification\'s own frame', async () => {
    const { userId } = await player();
    const s = await stream(userId);
    await invite(t, auth, groupId, userId);
    await s.waitFor(() => notificationFrames(s).length === 1, 10_000, 'the invitation');
    const [n] = notificationsOn(s);
    await markRead(userId, { ids: [n.id] });
    await s.waitFor(() => readsOn(s).length === 1, 10_000, 'the read frame');
    expect(s.frames.filter((f) => f.data !== undefined).map((f) => f.event)).toEqual(['notification', 'notifications.read']);
  });
});

describe('resume', () => {
  it('with after or Last-Event-ID: the player\'s notifications after it, then live, each once', async () => {
    const { userId, ids } = await player(4);
    await player(2); // another player's, written between
    const byQuery = await stream(userId, auth, `?after=${ids[0]}`);
    const byHeader = await stream(userId, { ...auth, 'last-event-id': ids[2] });
    await byQuery.waitFor(() => byQuery.ids().length === 3, 10_000, 'the replay');
    await byHeader.waitFor(() => byHeader.ids().length === 1, 10_000, 'the replay');
    await invite(t, auth, groupId, userId);
    const all = await idsOf(userId);
    await byQuery.waitFor(() => byQuery.ids().length === 4, 10_000, 'the live notification');
    await byHeader.waitFor(() => byHeader.ids().length === 2, 10_000, 'the live notification');
    await sleep(200);
    expect(byQuery.ids()).toEqual(all.slice(1));
    expect(byHeader.ids()).toEqual(all.slice(3));
    expect(idOnly(byQuery)).toEqual([]);
    // The replayed frames are the live ones' equals: the Notification as the list has it (its read state now).
    expect(notificationsOn(byQuery)).toEqual((await notificationsOf(t, auth, userId)).reverse().slice(1));
  });

  it('after the last one: nothing replayed, then live', async () => {
    const { userId, ids } = await player(2);
    const s = await stream(userId, auth, `?after=${ids[1]}`);
    await sleep(200);
    expect(s.ids()).toEqual([]);
    await invite(t, auth, groupId, userId);
    await s.waitFor(() => s.ids().length === 1, 10_000, 'the live notification');
    expect(s.ids()).toEqual((await idsOf(userId)).slice(2));
  });

  it('a client that drops before its first notification resumes after the opening id and misses nothing', async () => {
    const { userId, ids } = await player(1);
    const first = await stream(userId);
    await first.waitFor(() => idOnly(first).length === 1, 10_000, 'the opening id');
    expect(idOnly(first)).toEqual([ids[0]]);
    first.close();
    await invite(t, auth, groupId, userId);
    await invite(t, auth, groupId, userId);
    const resumed = await stream(userId, { ...auth, 'last-event-id': ids[0] });
    await resumed.waitFor(() => resumed.ids().length === 2, 10_000, 'the two notifications of the gap');
    expect(resumed.ids()).toEqual((await idsOf(userId)).slice(1));
  });

  it('a replay of more than a page (1,000) hands over to the live tail without a gap or a repeat', async () => {
    const { userId, ids } = await player(1);
    const svcUserId = await svcId(t, gameId, userId);
    await t.db.query(
      `INSERT INTO notifications (id, game_id, user_id, kind, data)
       SELECT svc_uuidv7(), $1, $2, 'friend.request.accepted', '{}'::jsonb FROM generate_series(1, 1000)`,
      [gameId, svcUserId],
    );
    const s = await stream(userId, auth, `?after=${ids[0]}`);
    await invite(t, auth, groupId, userId); // live while the replay runs
    await s.waitFor(() => s.ids().length === 1001, 20_000, 'the replay and the live notification');
    await sleep(200);
    expect(s.ids()).toEqual((await t.db.query<{ id: string }>(`SELECT id FROM notifications WHERE user_id = $1 ORDER BY era, xid, seq`, [svcUserId])).map((r) => r.id).slice(1));
  });
});

describe('the horizon: a notification committed late is never skipped', () => {
  /** A notification staged as the unit of work writes one, in a transaction left open. */
  async function openTransaction(svcUserId: string): Promise<{ client: Client; id: string }> {
    const client = new Client({ connectionString: t.db.url });
    client.on('error', () => undefined);
    await client.connect();
    const id = uuidv7();
    await client.query('BEGIN');
    await client.query(`INSERT INTO notifications (id, game_id, user_id, kind, data) VALUES ($1, $2, $3, 'friend.request.accepted', '{}'::jsonb)`, [id, gameId, svcUserId]);
    await client.query(`SELECT pg_notify('svc_notifications', json_build_object('t', 'new', 'g', $1::text, 'u', $2::text)::text)`, [gameId, svcUserId]);
    return { client, id };
  }

  it('one committed after an older open transaction waits for it, then comes after its own; a resume replays both in that order', async () => {
    const { userId, ids } = await player(1);
    const svcUserId = await svcId(t, gameId, userId);
    const held = await openTransaction(svcUserId);
    try {
      const live = await stream(userId);
      await invite(t, auth, groupId, userId);
      const later = (await idsOf(userId)).find((id) => id !== ids[0])!;
      // Committed, but behind a transaction still open: a stream that sent it now would let a
      // client resume after it, past the older one still to come.
      await sleep(300);
      expect(live.ids()).toEqual([]);
      const early = await stream(userId, auth, `?after=${ids[0]}`);
      await sleep(300);
      expect(early.ids()).toEqual([]);
      await held.client.query('COMMIT');
      await live.waitFor(() => live.ids().length === 2, 10_000, 'both notifications');
      await early.waitFor(() => early.ids().length === 2, 10_000, 'both notifications');
      expect(live.ids()).toEqual([held.id, later]);
      expect(early.ids()).toEqual([held.id, later]);
      const resumed = await stream(userId, { ...auth, 'last-event-id': ids[0] });
      await resumed.waitFor(() => resumed.ids().length === 2, 10_000, 'the replay');
      expect(resumed.ids()).toEqual([held.id, later]);
    } finally {
      await held.client.end();
    }
  });

  it('one of a rolled-back transaction never appears; those behind it then do', async () => {
    const { userId } = await player();
    const held = await openTransaction(await svcId(t, gameId, userId));
    try {
      const s = await stream(userId);
      await invite(t, auth, groupId, userId);
      await held.client.query('ROLLBACK');
      await s.waitFor(() => s.ids().length === 1, 10_000, 'the committed notification');
      expect(s.ids()).toEqual(await idsOf(userId));
    } finally {
      await held.client.end();
    }
  });
});

describe('the streams of this instance', () => {
  it('are counted as the notifications kind while open, and dropped when their client goes', async () => {
    const hub = t.app.get(NotificationStreams);
    const stats = t.app.get(StreamStats);
    // The streams of the tests before are closed, but the server may not have seen them go yet.
    for (const until = Date.now() + 3_000; hub.size && Date.now() < until; ) await sleep(20);
    const before = hub.size;
    const { userId } = await player();
    const s = await stream(userId);
    expect(stats.open().notifications).toBe(before + 1);
    await invite(t, auth, groupId, userId);
    await s.waitFor(() => s.ids().length === 1, 10_000, 'the invitation');
    expect(stats.framesSent.notifications).toBeGreaterThan(0);
    s.close();
    const until = Date.now() + 3_000;
    while (hub.size !== before && Date.now() < until) await sleep(20);
    expect(hub.size).toBe(before);
    await invite(t, auth, groupId, userId); // written to nobody, without failing
  });

  it('end when the LISTEN connection was lost (read marks may have gone unheard); the client resumes and misses nothing', async () => {
    const stats = t.app.get(StreamStats);
    const unheard = stats.cutOff.unheard;
    const { userId, ids } = await player(1);
    const s = await stream(userId);
    await t.db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'guildhall-listener' AND datname = current_database()`);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([s.ended, new Promise((_, fail) => (timer = setTimeout(() => fail(new Error('still open 10 s after the listener was cut')), 10_000)))]);
    clearTimeout(timer);
    expect(stats.cutOff.unheard).toBe(unheard + 1);
    await invite(t, auth, groupId, userId);
    const resumed = await stream(userId, { ...auth, 'last-event-id': ids[0] });
    await resumed.waitFor(() => resumed.ids().length === 1, 10_000, 'the notification written meanwhile');
    expect(resumed.ids()).toEqual((await idsOf(userId)).slice(1));
  });

  it('end cleanly when the app closes', async () => {
    const t2 = await startTestApp(ENV, t.db);
    await t2.app.listen(0, '127.0.0.1');
    const at = `http://127.0.0.1:${(t2.app.getHttpServer().address() as AddressInfo).port}`;
    const { userId } = await player();
    const s = await stream(userId, auth, '', at);
    expect(s.status).toBe(200);
    const started = Date.now();
    await t2.close();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([s.ended, new Promise((_, fail) => (timer = setTimeout(() => fail(new Error('still open 5 s after close')), 5_000)))]);
    clearTimeout(timer);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
