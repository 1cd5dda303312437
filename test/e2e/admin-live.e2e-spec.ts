import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Response } from 'supertest';
import { EventStreams } from '../../src/events/event-streams';
import { joinOk, postGroup } from '../helpers/groups';
import { openSse, type SseFrame, type SseStream } from '../helpers/sse';
import { asAdmin, authedGame, bearer, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The operator's live events (docs/concepts/admin.md): GET /v1/admin/games/:gameId/events (the
 * game's stream), .../groups/:groupId/events (a group's, without viewer) and .../events/feed give
 * what GET /v1/events, /v1/events/:groupId and /v1/events/feed give the game's key: the same
 * frames, `after` and Last-Event-ID replay, `types`, and handshake errors as envelopes.
 */
let t: TestApp;
let base: string;
const streams: SseStream[] = [];
type Auth = Record<string, string>;

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  await t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});
afterAll(() => t.close());

const A = (gameId: string) => `/v1/admin/games/${gameId}`;

async function sse(path: string, headers: Record<string, string>): Promise<SseStream> {
  const s = await openSse(base, path, headers);
  streams.push(s);
  return s;
}
/** The event frames of a stream, without the `:ok` and heartbeat comments. */
const events = (s: SseStream): SseFrame[] => s.frames.filter((f) => f.data !== undefined);
const until = (s: SseStream, count: number) => s.waitFor(() => events(s).length >= count, 10_000, `${count} events`);

/** A handshake that failed: the status and the envelope, as the game routes answer it. */
function expectEnvelope(s: SseStream, status: number, code: string, message?: string): void {
  expect({ status: s.status, code: s.body?.code, bodyStatus: s.body?.status }).toEqual({ status, code, bodyStatus: status });
  if (message !== undefined) expect(s.body?.message).toBe(message);
}

async function ok(req: Promise<Response>, status = 200): Promise<Response> {
  const r = await req;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status} ${r.text}`);
  return r;
}

/** The feed once it shows `count` items: an event joins it when every transaction older than its own has ended. */
async function settled(get: () => Promise<Response>, count: number): Promise<Response> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await ok(get());
    if (r.body.items.length >= count || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A game with a public group (two joins), a secret one (its creator, an invitation) and a game-wide ban: 7 events. */
async function busyGame() {
  const g = await authedGame(t);
  const open = await postGroup(t, g.auth, { kind: 'guild', name: 'Open', visibility: 'public' });
  const secret = await postGroup(t, g.auth, { kind: 'guild', name: 'Hidden', visibility: 'secret', creatorUserId: 'founder' });
  await joinOk(t, g.auth, open.id, 'u1');
  await ok(t.http.post(`/v1/groups/${secret.id}/invitations`).set(g.auth).send({ targetUserId: 'u2' }), 201);
  await joinOk(t, g.auth, open.id, 'u3');
  await ok(t.http.post('/v1/bans').set(g.auth).send({ userId: 'cheater' }), 201);
  const ids = (await settled(() => t.http.get('/v1/events/feed').set(g.auth), 7)).body.items.map((e: { id: string }) => e.id);
  expect(ids).toHaveLength(7);
  return { ...g, open: open.id, secret: secret.id, ids };
}

describe('GET /v1/admin/games/:gameId/events', () => {
  it("receives what a game key's mutations commit, frame for frame as the game's own stream, and nothing of another game", async () => {
    const g = await authedGame(t);
    const other = await authedGame(t);
    const mine = await sse('/v1/events', g.auth);
    const theirs = await sse(`${A(g.gameId)}/events`, asAdmin);
    expect(theirs.status).toBe(200);
    expect(theirs.headers['content-type']).toMatch(/^text\/event-stream/);
    await theirs.waitFor(() => theirs.frames.length > 0, 5_000, 'the first frame');
    expect(theirs.frames[0].comments).toEqual([':ok']);

    await postGroup(t, other.auth, { kind: 'guild', name: 'Elsewhere', creatorUserId: 'x' });
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Live', visibility: 'public', creatorUserId: 'founder' });
    await joinOk(t, g.auth, group.id, 'joiner');
    await ok(t.http.post('/v1/bans').set(g.auth).send({ userId: 'banned-live' }), 201);

    await until(mine, 4);
    await until(theirs, 4);
    expect(events(theirs)).toEqual(events(mine));
    expect(events(theirs).map((f) => f.event).sort()).toEqual(['game.user.banned', 'group.created', 'member.joined', 'member.joined']);
    for (const f of events(theirs)) expect(JSON.parse(f.data!)).toMatchObject({ id: f.id, type: f.event, gameId: g.gameId });
  });

  it('replays from after, or from Last-Event-ID, then goes live; types filters; as the game route does', async () => {
    const g = await busyGame();
    const fromQuery = await sse(`${A(g.gameId)}/events?after=${g.ids[1]}`, asAdmin);
    const fromHeader = await sse(`${A(g.gameId)}/events`, { ...asAdmin, 'last-event-id': g.ids[3] });
    // `after` wins over the header, as on the game route.
    const both = await sse(`${A(g.gameId)}/events?after=${g.ids[4]}`, { ...asAdmin, 'last-event-id': g.ids[0] });
    const bans = await sse(`${A(g.gameId)}/events?after=${g.ids[0]}&types=game.user.banned,member.left`, asAdmin);
    const gameRoute = await sse(`/v1/events?after=${g.ids[1]}`, g.auth);
    await until(fromQuery, 5);
    await until(fromHeader, 3);
    await until(both, 2);
    await until(bans, 1);
    expect(fromQuery.ids()).toEqual(g.ids.slice(2));
    expect(fromHeader.ids()).toEqual(g.ids.slice(4));
    expect(both.ids()).toEqual(g.ids.slice(5));
    expect(bans.ids()).toEqual([g.ids[6]]);

    await ok(t.http.post(`/v1/groups/${g.open}/leave`).set(g.auth).send({ userId: 'u1' }));
    await until(fromQuery, 6);
    await until(bans, 2);
    await until(gameRoute, 6);
    expect(events(fromQuery)).toEqual(events(gameRoute));
    expect(events(fromQuery)[5].event).toBe('member.left');
    expect(events(bans).map((f) => f.event)).toEqual(['game.user.banned', 'member.left']);
  });
});

describe('GET /v1/admin/games/:gameId/groups/:groupId/events', () => {
  it("gives one group's events, a secret group's too whoever would view it; replays from after", async () => {
    const g = await busyGame();
    // The game route hides a secret group from a non-member viewer; the operator names none.
    expectEnvelope(await openSse(base, `/v1/events/${g.secret}?viewer=outsider`, g.auth), 404, 'not_found');
    const live = await sse(`${A(g.gameId)}/groups/${g.secret}/events?viewer=outsider`, asAdmin);
    const replayed = await sse(`${A(g.gameId)}/groups/${g.open}/events?after=${g.ids[0]}`, asAdmin);
    const gameRoute = await sse(`/v1/events/${g.open}?after=${g.ids[0]}`, g.auth);
    expect(live.status).toBe(200);
    await until(replayed, 2);
    const feed = (await ok(t.http.get('/v1/events/feed').set(g.auth))).body.items as { id: string; groupId?: string }[];
    expect(replayed.ids()).toEqual(feed.filter((e) => e.groupId === g.open && e.id !== g.ids[0]).map((e) => e.id));

    await joinOk(t, g.auth, g.open, 'late');
    await ok(t.http.post(`/v1/groups/${g.secret}/members/founder/kick`).set(g.auth).send({}));
    await until(live, 1);
    await until(replayed, 3);
    await until(gameRoute, 3);
    expect(events(live).map((f) => f.event)).toEqual(['member.kicked']);
    expect(JSON.parse(events(live)[0].data!).groupId).toBe(g.secret);
    expect(events(replayed)).toEqual(events(gameRoute));
    expect(events(replayed)[2].event).toBe('member.joined');
  });
});

describe('GET /v1/admin/games/:gameId/events/feed', () => {
  it("pages the game's feed as the game route does, following nextAfter; types filters", async () => {
    const g = await busyGame();
    const other = await busyGame();
    for (const query of ['', '?limit=3', `?after=${g.ids[2]}`, '?types=member.joined', `?after=${g.ids[6]}`]) {
      const mine = await ok(t.http.get(`/v1/events/feed${query}`).set(g.auth));
      const theirs = await ok(t.http.get(`${A(g.gameId)}/events/feed${query}`).set(asAdmin));
      expect(theirs.body).toEqual(mine.body);
    }
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 4; i++) {
      const r: Response = await ok(t.http.get(`${A(g.gameId)}/events/feed`).query({ limit: '2', ...(after ? { after } : {}) }).set(asAdmin));
      seen.push(...r.body.items.map((e: { id: string }) => e.id));
      after = r.body.nextAfter;
    }
    expect(seen).toEqual(g.ids);
    expect((await ok(t.http.get(`${A(other.gameId)}/events/feed`).set(asAdmin))).body.items.map((e: { id: string }) => e.id)).toEqual(other.ids);
  });
});

describe('handshake errors are envelopes, before any stream', () => {
  it("400 for a malformed after or an unknown type; 410 events_expired for another game's event; 404 for an unknown game or another game's group", async () => {
    const g = await busyGame();
    const other = await busyGame();
    const streamPaths = [`${A(g.gameId)}/events`, `${A(g.gameId)}/groups/${g.open}/events`];
    for (const path of [...streamPaths, `${A(g.gameId)}/events/feed`]) {
      const bad = await openSse(base, `${path}?after=nope`, asAdmin);
      expectEnvelope(bad, 400, 'bad_request');
      expect(bad.body?.message).toMatch(/^after/);
      expectEnvelope(await openSse(base, `${path}?after=${other.ids[0]}`, asAdmin), 410, 'events_expired');
    }
    for (const path of streamPaths) {
      const bad = await openSse(base, path, { ...asAdmin, 'last-event-id': 'nope' });
      expectEnvelope(bad, 400, 'bad_request');
      expect(bad.body?.message).toMatch(/^Last-Event-ID/);
    }
    expectEnvelope(await openSse(base, `${A(g.gameId)}/events?types=member.exploded`, asAdmin), 400, 'bad_request');
    expectEnvelope(await openSse(base, `${A(g.gameId)}/events/feed?types=member.exploded`, asAdmin), 400, 'bad_request');
    for (const path of [`${A(randomUUID())}/events`, `${A('not-a-uuid')}/events/feed`, `${A(randomUUID())}/groups/${g.open}/events`]) {
      expectEnvelope(await openSse(base, path, asAdmin), 404, 'not_found', 'game not found');
    }
    for (const path of [`${A(g.gameId)}/groups/${other.open}/events`, `${A(other.gameId)}/groups/${g.secret}/events`, `${A(g.gameId)}/groups/${randomUUID()}/events`]) {
      expectEnvelope(await openSse(base, path, asAdmin), 404, 'not_found', 'group not found');
    }
    await ok(t.http.delete(`/v1/groups/${g.open}`).set(g.auth));
    expectEnvelope(await openSse(base, `${A(g.gameId)}/groups/${g.open}/events`, asAdmin), 404, 'not_found', 'group not found');
    expect(t.app.get(EventStreams).size).toBe(0);
  });

  it('every route takes the admin token only: none, a wrong one or a game key is 401 invalid_admin_token', async () => {
    const g = await busyGame();
    for (const path of [`${A(g.gameId)}/events`, `${A(g.gameId)}/groups/${g.open}/events`, `${A(g.gameId)}/events/feed`]) {
      for (const headers of [{}, bearer('jadm_not_the_token'), g.auth]) {
        expectEnvelope(await openSse(base, path, headers), 401, 'invalid_admin_token');
      }
    }
    expect(t.app.get(EventStreams).size).toBe(0);
  });
});
