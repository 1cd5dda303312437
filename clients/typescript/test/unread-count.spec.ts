import { dismissNotification, followUnreadCount, listNotifications, markNotificationsRead, notificationCounts, type FollowUnreadCountOptions, type UnreadCount } from '../src/index.js';
import { NotificationStreams } from '../../../src/notifications/notification-streams';
import { gatedStreams, seenPlayer } from './notifications-support';
import { gameClient, startService, waitFor, type GameClient, type Service } from './support';

/**
 * followUnreadCount against the real service (EXTENSIONS X9): one unread count from the counts and
 * the stream, kept right across marks from other devices, dropped connections (resumed with
 * Last-Event-ID, the counts read again) and a resume id no longer kept (410: started again).
 */
let s: Service;
beforeAll(async () => {
  s = await startService({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => s.t.close());

const SETTLE_MS = 15_000;
const streamsOpen = () => s.t.app.get(NotificationStreams).size;

interface Badge {
  updates: UnreadCount[];
  /** The latest count, or undefined before the first. */
  unread(): number | undefined;
  stop(): Promise<void>;
}

function badge(options: Omit<FollowUnreadCountOptions, 'signal'>): Badge {
  const controller = new AbortController();
  const updates: UnreadCount[] = [];
  const done = (async () => {
    for await (const update of followUnreadCount({ ...options, signal: controller.signal })) updates.push(update);
  })();
  done.catch(() => undefined);
  return {
    updates,
    unread: () => updates.at(-1)?.unread,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

/** Waits until the badge shows what the service counts, and that it is `expected`. */
async function settles(b: Badge, g: GameClient, userId: string, expected: number, what: string): Promise<void> {
  expect((await notificationCounts(g.client, userId)).unread).toBe(expected);
  await waitFor(() => b.unread() === expected, SETTLE_MS, `${what}: the badge at ${expected} (it shows ${b.unread()})`);
}

describe('followUnreadCount', () => {
  it('starts from the counts, adds each unread notification, takes off what any device marks read', async () => {
    const g = await gameClient(s);
    const p = await seenPlayer(g);
    await p.invite(3);
    const before = (await listNotifications(g.client, p.userId)).items;
    await markNotificationsRead(g.client, p.userId, { ids: [before[2].id] });
    const b = badge({ baseUrl: s.baseUrl, apiKey: g.key, userId: p.userId });
    try {
      await waitFor(() => b.unread() === 2, 5_000, 'the counts');
      expect(b.updates[0]).toEqual({ unread: 2 });

      await p.invite(2);
      await settles(b, g, p.userId, 4, 'two new');
      expect(b.updates.filter((u) => u.frame?.type === 'notification').map((u) => u.unread)).toEqual([3, 4]);
      const [newest] = (await listNotifications(g.client, p.userId)).items;

      // One the counts held, one met as a frame, one read already: two off.
      await markNotificationsRead(g.client, p.userId, { ids: [before[0].id, newest.id] });
      await settles(b, g, p.userId, 2, 'two marked');
      await dismissNotification(g.client, p.userId, before[2].id);
      await dismissNotification(g.client, p.userId, before[1].id);
      await settles(b, g, p.userId, 1, 'an unread one dismissed');

      await markNotificationsRead(g.client, p.userId, { all: true });
      await settles(b, g, p.userId, 0, 'all marked');
      await p.invite(1);
      await settles(b, g, p.userId, 1, 'one after all were marked');
      // Time for a repeat to show up, were one coming.
      await new Promise((r) => setTimeout(r, 300));
      expect(b.unread()).toBe(1);
    } finally {
      await b.stop();
    }
  });

  it('across a dropped connection: resumes with Last-Event-ID, counts what was written meanwhile once, and sees the marks made meanwhile', async () => {
    const g = await gameClient(s);
    const p = await seenPlayer(g);
    await p.invite(3);
    const gated = gatedStreams();
    const b = badge({ baseUrl: s.baseUrl, apiKey: g.key, userId: p.userId, fetch: gated.fetch });
    try {
      await waitFor(() => b.unread() === 3 && streamsOpen() > 0, 5_000, 'the counts and the stream');
      await p.invite(1);
      await settles(b, g, p.userId, 4, 'one live');
      const [last, , , oldest] = (await listNotifications(g.client, p.userId)).items;

      gated.shut();
      s.t.app.getHttpServer().closeAllConnections();
      await waitFor(() => gated.attempts() === 2, 5_000, 'the badge to ask for a new connection');
      // Away: two more, and a mark no frame will tell of.
      await p.invite(2);
      await markNotificationsRead(g.client, p.userId, { ids: [oldest.id] });
      gated.open();
      await settles(b, g, p.userId, 5, 'back');
      await p.invite(1);
      await settles(b, g, p.userId, 6, 'one live after the reconnection');
      await new Promise((r) => setTimeout(r, 300));
      expect(b.unread()).toBe(6);
      const streams = gated.calls.filter((c) => c.path.endsWith('/stream'));
      expect(streams.map((c) => c.lastEventId)).toEqual([null, last.id]);
      // The counts were read as each connection opened.
      expect(gated.calls.filter((c) => c.path.endsWith('/counts'))).toHaveLength(2);
    } finally {
      gated.open();
      await b.stop();
    }
  });

  it('a resume id no longer kept (410 events_expired): reads the counts again and restarts without an id', async () => {
    const g = await gameClient(s);
    const p = await seenPlayer(g);
    await p.invite(2);
    const gated = gatedStreams();
    const b = badge({ baseUrl: s.baseUrl, apiKey: g.key, userId: p.userId, fetch: gated.fetch });
    try {
      await waitFor(() => b.unread() === 2 && streamsOpen() > 0, 5_000, 'the counts and the stream');
      await p.invite(1);
      await settles(b, g, p.userId, 3, 'one live');
      const [resumeAt] = (await listNotifications(g.client, p.userId)).items;

      gated.shut();
      s.t.app.getHttpServer().closeAllConnections();
      await waitFor(() => gated.attempts() === 2, 5_000, 'the badge to ask for a new connection');
      // The notification it would resume after is dismissed: the resume is refused.
      await dismissNotification(g.client, p.userId, resumeAt.id);
      await p.invite(2);
      gated.open();
      await settles(b, g, p.userId, 4, 'after the restart');
      await p.invite(1);
      await settles(b, g, p.userId, 5, 'live after the restart');
      const streams = gated.calls.filter((c) => c.path.endsWith('/stream'));
      expect(streams.map((c) => [c.lastEventId, c.status])).toEqual([
        [null, 200],
        [resumeAt.id, 410],
        [null, 200],
      ]);
      expect(gated.calls.filter((c) => c.path.endsWith('/counts'))).toHaveLength(2);
    } finally {
      gated.open();
      await b.stop();
    }
  });

  it('a wrong key throws GuildhallError (401)', async () => {
    const failure = followUnreadCount({ baseUrl: s.baseUrl, apiKey: 'jk_0000000000000000.nope', userId: 'anyone' }).next();
    await expect(failure).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
  });
});
