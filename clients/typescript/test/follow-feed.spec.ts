import { createGuildhallClient, followFeed, GuildhallError, type FeedEvent, type FollowFeedOptions } from '../src/index.js';
import { EventStreams } from '../../../src/events/event-streams';
import { gameClient, recordingFetch, rejection, startService, waitFor, type GameClient, type Service } from './support';

/**
 * followFeed against the real stream (EXTENSIONS X1): replay then live, and resumption after a
 * dropped connection with every event delivered exactly once, in feed order.
 */
let s: Service;
beforeAll(async () => {
  s = await startService({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => s.t.close());

/** Events are visible to the feed once every transaction older than theirs has ended, on the whole server. */
const SETTLE_MS = 15_000;

interface Follower {
  events: FeedEvent[];
  ids(): string[];
  /** Waits until `count` events have arrived; fails at once if the iteration threw. */
  until(count: number, what: string): Promise<void>;
  /** Aborts, then waits for the iteration to end. */
  stop(): Promise<void>;
}

/** Iterates followFeed in the background, collecting what it yields and what its connections came to. */
function follow(options: Omit<FollowFeedOptions, 'signal'>): Follower {
  const controller = new AbortController();
  const events: FeedEvent[] = [];
  const connections = recordingFetch(options.fetch);
  let failure: { error: unknown } | undefined;
  const done = (async () => {
    for await (const event of followFeed({ ...options, fetch: connections.fetch, signal: controller.signal })) events.push(event);
  })();
  // A failure surfaces in until() and stop(); until then it must not count as an unhandled rejection.
  done.catch((error: unknown) => (failure = { error }));
  const outcomes = () => connections.calls.map((c) => c.status ?? c.error ?? 'pending').join(', ');
  return {
    events,
    ids: () => events.map((e) => e.id),
    until: (count, what) =>
      waitFor(
        () => {
          if (failure) throw new Error(`${what}: followFeed threw ${String(failure.error)}`);
          return events.length === count;
        },
        SETTLE_MS,
        () => `${what} (${events.length} of ${count} events; connections: ${outcomes()})`,
      ),
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

async function publicGroup(g: GameClient, creator: string): Promise<string> {
  const r = await g.client.POST('/v1/groups', { body: { kind: 'guild', name: 'Knights', visibility: 'public', creatorUserId: creator } });
  return r.data!.id;
}

async function join(g: GameClient, groupId: string, userIds: string[]): Promise<void> {
  for (const userId of userIds) {
    const r = await g.client.POST('/v1/groups/{id}/join', { params: { path: { id: groupId } }, body: { userId } });
    if (r.response.status !== 201) throw new Error(`join ${userId}: ${r.response.status}`);
  }
}

/** The game's feed (after `after`), read page by page once it holds `count` events: the order to expect. */
async function feedIds(g: GameClient, after: string | undefined, count: number): Promise<string[]> {
  const until = Date.now() + SETTLE_MS;
  for (;;) {
    const ids: string[] = [];
    let cursor = after;
    for (;;) {
      const { data } = await g.client.GET('/v1/events/feed', { params: { query: { after: cursor, limit: 5 } } });
      if (!data || data.items.length === 0) break;
      ids.push(...data.items.map((e) => e.id));
      cursor = data.nextAfter!;
    }
    if (ids.length >= count || Date.now() > until) return ids;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A recording fetch whose second and later requests wait until `openGate()`, so that events commit
 * while the follower is away.
 */
function gatedReconnection(): { fetch: typeof fetch; recorder: ReturnType<typeof recordingFetch>; attempts: () => number; openGate: () => void } {
  let openGate!: () => void;
  const gate = new Promise<void>((r) => (openGate = r));
  const recorder = recordingFetch();
  let attempts = 0;
  const gated: typeof fetch = async (input, init) => {
    if (++attempts > 1) await gate;
    return recorder.fetch(input, init);
  };
  return { fetch: gated, recorder, attempts: () => attempts, openGate };
}

describe('followFeed', () => {
  it('replays after `after`, goes live, and resumes across a dropped connection: every event once, in feed order', async () => {
    const { fetch: gatedFetch, recorder, attempts, openGate } = gatedReconnection();
    const g = await gameClient(s);
    const groupId = await publicGroup(g, 'founder');
    // The group's creation: group.created and the founder's member.joined; the follower starts after both.
    const start = (await feedIds(g, undefined, 2))[1];
    await join(g, groupId, ['u1', 'u2', 'u3']);

    const f = follow({ baseUrl: s.baseUrl, apiKey: g.key, after: start, fetch: gatedFetch });
    await f.until(3, 'the replay of three joins');
    await join(g, groupId, ['u4', 'u5', 'u6']);
    await f.until(6, 'three live joins');

    const lastBeforeDrop = f.ids().at(-1);
    s.t.app.getHttpServer().closeAllConnections();
    await waitFor(() => attempts() === 2, 5_000, 'the follower to ask for a new connection');
    await join(g, groupId, ['u7', 'u8', 'u9']);
    openGate();
    await f.until(9, 'the events committed while disconnected');
    await join(g, groupId, ['u10', 'u11']);
    await f.until(11, 'live joins after the reconnection');
    // Time for a duplicate to show up, were one coming.
    await new Promise((r) => setTimeout(r, 300));
    await f.stop();

    expect(recorder.calls.map((c) => new URL(c.url).searchParams.get('after'))).toEqual([start, lastBeforeDrop]);
    expect(f.events.map((e) => (e.member as { userId: string }).userId)).toEqual(Array.from({ length: 11 }, (_, i) => `u${i + 1}`));
    expect(f.ids()).toEqual(await feedIds(g, start, 11));
  });

  it('without `after`, a connection dropped before its first event resumes where the stream began: nothing is lost', async () => {
    const { fetch: gatedFetch, recorder, attempts, openGate } = gatedReconnection();
    const g = await gameClient(s);
    const groupId = await publicGroup(g, 'founder');
    const [, last] = await feedIds(g, undefined, 2);

    const f = follow({ baseUrl: s.baseUrl, apiKey: g.key, fetch: gatedFetch });
    try {
      await waitFor(() => recorder.calls.length === 1 && s.t.app.get(EventStreams).size > 0, 5_000, 'the live stream to open');
      // Its opening frames (':ok', then the id) are written with the headers; give the client a moment to read them.
      await new Promise((r) => setTimeout(r, 250));
      s.t.app.getHttpServer().closeAllConnections();
      await waitFor(() => attempts() === 2, 5_000, 'the follower to ask for a new connection');
      await join(g, groupId, ['gap1', 'gap2']);
      openGate();
      await f.until(2, 'the events committed while disconnected');
    } finally {
      openGate();
      await f.stop();
    }

    // The first connection asked for no position; the stream named the game's last event, and the second resumed there.
    expect(recorder.calls.map((c) => new URL(c.url).searchParams.get('after'))).toEqual([null, last]);
    expect(f.events.map((e) => (e.member as { userId: string }).userId)).toEqual(['gap1', 'gap2']);
  });

  it('types keeps only those event types', async () => {
    const g = await gameClient(s);
    const groupId = await publicGroup(g, 'founder');
    const start = (await feedIds(g, undefined, 2))[1];
    await join(g, groupId, ['stays', 'goes']);
    const left = await g.client.POST('/v1/groups/{id}/leave', { params: { path: { id: groupId } }, body: { userId: 'goes' } });
    expect(left.response.status).toBe(200);
    const f = follow({ baseUrl: s.baseUrl, apiKey: g.key, after: start, types: ['member.left'] });
    await f.until(1, 'the member.left event');
    await new Promise((r) => setTimeout(r, 200));
    await f.stop();
    expect(f.events).toEqual([expect.objectContaining({ type: 'member.left', groupId })]);
  });

  it('a silent connection (no heartbeat within heartbeatTimeoutMs) is replaced, and nothing is lost or repeated', async () => {
    const recorder = recordingFetch();
    const g = await gameClient(s);
    const groupId = await publicGroup(g, 'founder');
    const start = (await feedIds(g, undefined, 2))[1];
    const f = follow({ baseUrl: s.baseUrl, apiKey: g.key, after: start, fetch: recorder.fetch, heartbeatTimeoutMs: 200 });
    await waitFor(() => recorder.calls.length >= 3, 10_000, 'two replacements of the silent connection');
    await join(g, groupId, ['a', 'b', 'c']);
    await f.until(3, 'three joins');
    await new Promise((r) => setTimeout(r, 300));
    await f.stop();
    expect(f.ids()).toEqual(await feedIds(g, start, 3));
  });

  it('a 429 handshake is retried after its Retry-After, then the feed flows', async () => {
    // A second instance on the same database, rate limited: the game is arranged on the first.
    const limited = await startService({ RATE_LIMIT_PER_MINUTE: '60', RATE_LIMIT_BURST: '2' }, s.t.db);
    try {
      const recorder = recordingFetch();
      const g = await gameClient(s);
      const groupId = await publicGroup(g, 'founder');
      const start = (await feedIds(g, undefined, 2))[1];
      await join(g, groupId, ['late']);
      // Drain the key's bucket there: the feed's first handshake is then refused.
      const drained = createGuildhallClient({ baseUrl: limited.baseUrl, apiKey: g.key });
      while ((await drained.GET('/v1/whoami')).response.status !== 429);
      const f = follow({ baseUrl: limited.baseUrl, apiKey: g.key, after: start, fetch: recorder.fetch });
      await f.until(1, 'the join, once the limit allows');
      await f.stop();
      expect(recorder.calls[0].status).toBe(429);
      expect(recorder.calls.at(-1)?.status).toBe(200);
      expect((f.events[0].member as { userId: string }).userId).toBe('late');
    } finally {
      await limited.t.close();
    }
  });

  it('what waiting cannot fix throws GuildhallError: an `after` the game never had (410), a wrong key (401)', async () => {
    const g = await gameClient(s);
    const expired = await rejection(followFeed({ baseUrl: s.baseUrl, apiKey: g.key, after: 'f'.repeat(24) }).next());
    expect(expired).toBeInstanceOf(GuildhallError);
    expect(expired).toMatchObject({ status: 410, code: 'events_expired' });
    const unknownKey = await rejection(followFeed({ baseUrl: s.baseUrl, apiKey: 'jk_0000000000000000.nope' }).next());
    expect(unknownKey).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });

  it('aborting the signal ends the iteration without an error', async () => {
    const g = await gameClient(s);
    const f = follow({ baseUrl: s.baseUrl, apiKey: g.key });
    await new Promise((r) => setTimeout(r, 100));
    await expect(f.stop()).resolves.toBeUndefined();
  });
});
