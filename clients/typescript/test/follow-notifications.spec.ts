import { followNotifications, GuildhallError, listNotifications, markNotificationsRead, type FollowNotificationsOptions, type NotificationFrame } from '../src/index.js';
import { NotificationStreams } from '../../../src/notifications/notification-streams';
import { gatedStreams, seenPlayer } from './notifications-support';
import { gameClient, rejection, startService, waitFor, type Service } from './support';

/**
 * followNotifications against the real stream (EXTENSIONS X9): notification and read frames, and a
 * dropped connection resumed with Last-Event-ID, every notification once, in order.
 */
let s: Service;
beforeAll(async () => {
  s = await startService({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => s.t.close());

/** A notification is sent once every transaction older than its own has ended, on the whole server. */
const SETTLE_MS = 15_000;

function follow(options: Omit<FollowNotificationsOptions, 'signal'>): { frames: NotificationFrame[]; notifications(): string[]; stop(): Promise<void> } {
  const controller = new AbortController();
  const frames: NotificationFrame[] = [];
  const done = (async () => {
    for await (const frame of followNotifications({ ...options, signal: controller.signal })) frames.push(frame);
  })();
  // A failure surfaces in stop(); until then it must not count as an unhandled rejection.
  done.catch(() => undefined);
  return {
    frames,
    notifications: () => frames.flatMap((f) => (f.type === 'notification' ? [f.notification.id] : [])),
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

const streamsOpen = () => s.t.app.get(NotificationStreams).size;

describe('followNotifications', () => {
  it('yields each new notification, and the marks of any device as notifications.read frames', async () => {
    const g = await gameClient(s);
    const p = await seenPlayer(g);
    const f = follow({ baseUrl: s.baseUrl, apiKey: g.key, userId: p.userId });
    try {
      await waitFor(() => streamsOpen() > 0, 5_000, 'the stream to open');
      await p.invite(3);
      await waitFor(() => f.notifications().length === 3, SETTLE_MS, 'three notifications');
      const [newest, , oldest] = (await listNotifications(g.client, p.userId)).items;
      expect(f.notifications()).toEqual([oldest.id, expect.any(String), newest.id]);
      await markNotificationsRead(g.client, p.userId, { ids: [oldest.id] });
      await markNotificationsRead(g.client, p.userId, { all: true });
      await waitFor(() => f.frames.length === 5, SETTLE_MS, 'two read frames');
      expect(f.frames.slice(3)).toEqual([
        { type: 'notifications.read', ids: [oldest.id] },
        { type: 'notifications.read', all: true, before: expect.any(String) },
      ]);
      expect(f.frames[0]).toEqual({ type: 'notification', notification: oldest });
    } finally {
      await f.stop();
    }
  });

  it('a dropped connection resumes with Last-Event-ID: what was written meanwhile comes once, in order; before any notification, from where the stream began', async () => {
    const g = await gameClient(s);
    const p = await seenPlayer(g);
    await p.invite(1);
    const [opening] = (await listNotifications(g.client, p.userId)).items;
    const gated = gatedStreams();
    const f = follow({ baseUrl: s.baseUrl, apiKey: g.key, userId: p.userId, fetch: gated.fetch });
    /** Drops the stream, writes `n` while the follower is away, then lets it back. */
    const away = async (n: number) => {
      gated.shut();
      const attempts = gated.attempts();
      s.t.app.getHttpServer().closeAllConnections();
      await waitFor(() => gated.attempts() === attempts + 1, 5_000, 'the follower to ask for a new connection');
      await p.invite(n);
      gated.open();
    };
    try {
      await waitFor(() => streamsOpen() > 0, 5_000, 'the stream to open');
      // Its opening frames (':ok', then the id of the player's latest) are written with the headers.
      await new Promise((r) => setTimeout(r, 250));
      await away(2);
      await waitFor(() => f.notifications().length === 2, SETTLE_MS, 'the two written while away');
      await away(2);
      await waitFor(() => f.notifications().length === 4, SETTLE_MS, 'the two written while away again');
      await p.invite(1);
      await waitFor(() => f.notifications().length === 5, SETTLE_MS, 'one live after the reconnection');
      // Time for a repeat to show up, were one coming.
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      gated.open();
      await f.stop();
    }
    const written = (await listNotifications(g.client, p.userId)).items.map((n) => n.id).reverse();
    expect(written[0]).toBe(opening.id);
    expect(f.notifications()).toEqual(written.slice(1));
    const streams = gated.calls.filter((c) => c.path.endsWith('/stream'));
    expect(streams.map((c) => [c.lastEventId, c.status])).toEqual([
      [null, 200],
      [opening.id, 200],
      [written[2], 200],
    ]);
  });

  it('what waiting cannot fix throws GuildhallError: an `after` no longer kept (410), one that is no id (400), a wrong key (401)', async () => {
    const g = await gameClient(s);
    const expired = await rejection(followNotifications({ baseUrl: s.baseUrl, apiKey: g.key, userId: 'anyone', after: '0190f2a4-0000-7000-8000-000000000000' }).next());
    expect(expired).toBeInstanceOf(GuildhallError);
    expect(expired).toMatchObject({ status: 410, code: 'events_expired' });
    expect(await rejection(followNotifications({ baseUrl: s.baseUrl, apiKey: g.key, userId: 'anyone', after: 'nope' }).next())).toMatchObject({ status: 400 });
    expect(await rejection(followNotifications({ baseUrl: s.baseUrl, apiKey: 'jk_0000000000000000.nope', userId: 'anyone' }).next())).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });
});
