import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import type { SvcEvent } from '../../src/events/event';
import { EventStreams } from '../../src/events/event-streams';
import { journalEvents } from '../helpers/journal';
import { bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';
import type { TestDatabase } from '../helpers/test-db';

/**
 * The live stream end to end over a real socket: SPEC §4 Live stream, §6 Channels / Live stream;
 * DECISIONS §8 (frame layout), §9 (the Member nested under `member`), §26 (subscribed before the
 * headers go out). Two instances on one database show the NOTIFY relay, inline and by reference.
 */

// ---------------------------------------------------------------------------------------------
// an SSE client reading the raw byte stream

interface Frame {
  raw: string;
  id?: string;
  event?: string;
  data?: string;
  comments: string[];
}

interface Stream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body of a non-200 answer. */
  body: Record<string, unknown> | null;
  text: string;
  frames: Frame[];
  /** Event frames with their data parsed. */
  events(): (SvcEvent & Record<string, any>)[];
  /** Settles when the response ends or breaks: `complete` is true only for a clean end of the chunked body. */
  ended: Promise<{ complete: boolean; error?: string }>;
  waitFor<T>(find: () => T | undefined | false, ms?: number): Promise<T>;
  close(): void;
}

const open: Stream[] = [];

function parseFrame(raw: string): Frame {
  const f: Frame = { raw, comments: [] };
  const data: string[] = [];
  for (const line of raw.split('\n')) {
    if (line.startsWith(':')) f.comments.push(line);
    else if (line.startsWith('id: ')) f.id = line.slice(4);
    else if (line.startsWith('event: ')) f.event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (data.length) f.data = data.join('\n');
  return f;
}

function subscribe(port: number, groupId: string, headers: Record<string, string> = {}, query = ''): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path: `/v1/events/${encodeURIComponent(groupId)}${query}`,
      agent: false,
      headers: { accept: 'text/event-stream', ...headers },
    });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      let buf = '';
      let text = '';
      let endedResolve!: (v: { complete: boolean; error?: string }) => void;
      const ended = new Promise<{ complete: boolean; error?: string }>((r) => (endedResolve = r));
      const s: Stream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: null,
        text: '',
        frames: [],
        events: () => s.frames.filter((f) => f.data !== undefined).map((f) => JSON.parse(f.data!)),
        ended,
        waitFor: async (find, ms = 5_000) => {
          const until = Date.now() + ms;
          for (;;) {
            const v = find();
            if (v) return v;
            if (Date.now() > until) throw new Error(`timed out; frames so far: ${JSON.stringify(s.frames.map((f) => f.raw))}`);
            await new Promise((r) => setTimeout(r, 20));
          }
        },
        close: () => req.destroy(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        s.text = text;
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          s.frames.push(parseFrame(buf.slice(0, i)));
          buf = buf.slice(i + 2);
        }
      });
      res.on('end', () => endedResolve({ complete: res.complete }));
      res.on('error', (err) => endedResolve({ complete: false, error: err.message }));
      res.on('aborted', () => endedResolve({ complete: false, error: 'aborted' }));
      res.on('close', () => endedResolve({ complete: res.complete }));
      if (s.status === 200) {
        open.push(s);
        resolve(s);
        return;
      }
      ended.then(() => {
        s.text = text;
        try {
          s.body = JSON.parse(text);
        } catch {
          s.body = null;
        }
        resolve(s);
      });
    });
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------
// the apps and helpers

const ENV = { WEBHOOK_WORKER_ENABLED: 'false' };
const EVENT_ID = /^[0-9a-f]{24}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let port: number;

async function listen(app: TestApp): Promise<number> {
  await app.app.listen(0, '127.0.0.1');
  return (app.app.getHttpServer().address() as AddressInfo).port;
}

beforeAll(async () => {
  t = await startTestApp(ENV);
  port = await listen(t);
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});
afterAll(() => t?.close());

async function game(app: TestApp = t) {
  const g = await newGame(app);
  return { gameId: g.gameId, key: g.key, auth: bearer(g.key) };
}

async function group(auth: Record<string, string>, body: Record<string, unknown> = {}, app: TestApp = t): Promise<{ id: string }> {
  const r = await app.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'Knights', visibility: 'public', ...body });
  if (r.status !== 201) throw new Error(`create group: ${r.status} ${r.text}`);
  return r.body;
}

async function join(auth: Record<string, string>, groupId: string, userId: string, app: TestApp = t) {
  const r = await app.http.post(`/v1/groups/${groupId}/join`).set(auth).send({ userId });
  if (r.status !== 201) throw new Error(`join: ${r.status} ${r.text}`);
  return r.body as { id: string; groupId: string; userId: string; joinedAt: string };
}

const joinedOf = (s: Stream, userId: string) => s.events().find((e) => e.type === 'member.joined' && e.member?.userId === userId);

async function outboxBody(eventId: string): Promise<SvcEvent> {
  const [row] = await t.db.query<{ body: SvcEvent }>(`SELECT body FROM ${journalEvents()} WHERE id = $1`, [eventId]);
  return row.body;
}

function expectEnvelope(s: Stream, status: number, code: string): void {
  expect({ status: s.status, code: s.body?.code }).toEqual({ status, code });
  expect(s.body).toMatchObject({ status, message: expect.any(String) });
  expect(s.headers['content-type']).toMatch(/^application\/json/);
  expect(s.headers['x-request-id']).toEqual(expect.any(String));
}

// ---------------------------------------------------------------------------------------------

describe('handshake', () => {
  it('401 invalid_api_key without a key or with a wrong one', async () => {
    const { auth } = await game();
    const g = await group(auth);
    expectEnvelope(await subscribe(port, g.id), 401, 'invalid_api_key');
    expectEnvelope(await subscribe(port, g.id, bearer('jk_0000000000.wrong-secret')), 401, 'invalid_api_key');
  });

  it('404 not_found for an unknown, a non-uuid, a soft-deleted or another game\'s group', async () => {
    const a = await game();
    const b = await game();
    const gone = await group(a.auth);
    expect((await t.http.delete(`/v1/groups/${gone.id}`).set(a.auth)).status).toBe(200);
    const foreign = await group(b.auth);
    for (const id of ['0190a0b0-0000-7000-8000-00000000dead', 'not-a-group', gone.id, foreign.id]) {
      expectEnvelope(await subscribe(port, id, a.auth), 404, 'not_found');
    }
  });

  it('a secret group: 404 for a non-member viewer, 200 for a member viewer and without a viewer', async () => {
    const { auth } = await game();
    const g = await group(auth, { visibility: 'secret', creatorUserId: 'owner' });
    expectEnvelope(await subscribe(port, g.id, auth, '?viewer=stranger'), 404, 'not_found');
    expect((await subscribe(port, g.id, auth, '?viewer=owner')).status).toBe(200);
    expect((await subscribe(port, g.id, auth)).status).toBe(200);
    const pub = await group(auth);
    expect((await subscribe(port, pub.id, auth, '?viewer=stranger')).status).toBe(200);
  });

  it('200 with content-type text/event-stream, no caching and the x-request-id header (a caller\'s id is kept)', async () => {
    const { auth } = await game();
    const g = await group(auth);
    const s = await subscribe(port, g.id, auth);
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toMatch(/^text\/event-stream\b/);
    expect(s.headers['cache-control']).toMatch(/no-cache/);
    expect(s.headers['x-request-id']).toMatch(/^.+$/);
    const traced = await subscribe(port, g.id, { ...auth, 'x-request-id': 'trace-abc.123' });
    expect(traced.headers['x-request-id']).toBe('trace-abc.123');
  });
});

describe('events on the stream', () => {
  it('each event is one frame: `id: <event id>`, `event: <type>`, `data: <JSON event body>`', async () => {
    const { gameId, auth } = await game();
    const g = await group(auth);
    const s = await subscribe(port, g.id, auth);
    const member = await join(auth, g.id, 'alice');
    const e = await s.waitFor(() => joinedOf(s, 'alice'));
    const frame = s.frames.find((f) => f.id === e.id)!;
    expect(frame.raw).toBe(`id: ${e.id}\nevent: member.joined\ndata: ${frame.data}`);
    expect(frame.event).toBe(e.type);
    expect(e.id).toMatch(EVENT_ID);
    expect(e).toEqual(await outboxBody(e.id));
    // DECISIONS §9: the Member sits under `member`; the event's own id is not the member's.
    expect(e).toMatchObject({ type: 'member.joined', gameId, groupId: g.id, occurredAt: expect.stringMatching(ISO_MS) });
    expect(e.member).toMatchObject({ id: member.id, groupId: g.id, userId: 'alice', status: 'active', roles: expect.any(Array), joinedAt: member.joinedAt });
    expect(e.id).not.toBe(member.id);
    // On the wire: comments, event frames, and first the id-only frame naming the game's last event
    // (here the group's creation), which a client resumes after if it drops before an event.
    const [created] = await t.db.query<{ id: string }>(`SELECT id FROM ${journalEvents()} WHERE game_id = $1 AND type = 'group.created'`, [gameId]);
    const fields = s.frames.filter((f) => !f.raw.split('\n').every((l) => l.startsWith(':')));
    expect(fields[0].raw).toBe(`id: ${created.id}`);
    for (const f of fields.slice(1)) expect(f.data).toBeDefined();
  });

  it('delivers every group-scoped event of the group in commit order (update, join, leave, delete)', async () => {
    const { auth } = await game();
    const g = await group(auth);
    const s = await subscribe(port, g.id, auth);
    expect((await t.http.patch(`/v1/groups/${g.id}`).set(auth).send({ name: 'Renamed' })).status).toBe(200);
    await join(auth, g.id, 'bob');
    expect((await t.http.post(`/v1/groups/${g.id}/leave`).set(auth).send({ userId: 'bob' })).status).toBeLessThan(300);
    expect((await t.http.delete(`/v1/groups/${g.id}`).set(auth)).status).toBe(200);
    await s.waitFor(() => s.events().find((e) => e.type === 'group.deleted'));
    expect(s.events().map((e) => e.type)).toEqual(['group.updated', 'member.joined', 'member.left', 'group.deleted']);
    for (const e of s.events()) expect(e.groupId).toBe(g.id);
  });

  it('other groups\' events and user-scoped events (game.user.banned / unbanned) never arrive', async () => {
    const { auth } = await game();
    const mine = await group(auth);
    const other = await group(auth);
    const s = await subscribe(port, mine.id, auth);
    await join(auth, other.id, 'elsewhere');
    expect((await t.http.patch(`/v1/groups/${other.id}`).set(auth).send({ name: 'Other' })).status).toBe(200);
    await join(auth, mine.id, 'member-of-mine');
    expect((await t.http.post('/v1/bans').set(auth).send({ userId: 'member-of-mine', reason: 'x' })).status).toBe(201);
    expect((await t.http.delete('/v1/bans/member-of-mine').set(auth)).status).toBe(204);
    await join(auth, mine.id, 'control'); // published last
    await s.waitFor(() => joinedOf(s, 'control'));
    expect(s.events().map((e) => [e.type, e.member?.userId])).toEqual([
      ['member.joined', 'member-of-mine'],
      ['member.joined', 'control'],
    ]);
    expect(s.text).not.toContain('game.user.');
    expect(s.text).not.toContain(other.id);
  });

  it('every subscriber of the group gets the event once; a subscriber of another group gets nothing', async () => {
    const { auth } = await game();
    const g = await group(auth);
    const h = await group(auth);
    const s1 = await subscribe(port, g.id, auth);
    const s2 = await subscribe(port, g.id, auth);
    const sh = await subscribe(port, h.id, auth);
    await join(auth, g.id, 'carol');
    await join(auth, h.id, 'control');
    await sh.waitFor(() => joinedOf(sh, 'control'));
    await s1.waitFor(() => joinedOf(s1, 'carol'));
    await s2.waitFor(() => joinedOf(s2, 'carol'));
    await sleep(100);
    expect(s1.events()).toHaveLength(1);
    expect(s2.events()).toHaveLength(1);
    expect(s1.events()[0]).toEqual(s2.events()[0]);
    expect(sh.events().map((e) => e.member?.userId)).toEqual(['control']);
  });

  it('nothing is published for a rolled-back mutation (join refused with 409)', async () => {
    const { auth } = await game();
    const g = await group(auth);
    await join(auth, g.id, 'dave');
    const s = await subscribe(port, g.id, auth);
    const again = await t.http.post(`/v1/groups/${g.id}/join`).set(auth).send({ userId: 'dave' });
    expect(again.status).toBe(409);
    await join(auth, g.id, 'control');
    await s.waitFor(() => joinedOf(s, 'control'));
    expect(s.events().map((e) => e.member?.userId)).toEqual(['control']);
  });

  it('an event committed right after the headers were read arrives (DECISIONS §26)', async () => {
    const { auth } = await game();
    const g = await group(auth);
    for (let i = 0; i < 5; i++) {
      const s = await subscribe(port, g.id, auth);
      await join(auth, g.id, `quick-${i}`); // no pause between the headers and the commit
      await s.waitFor(() => joinedOf(s, `quick-${i}`), 3_000);
      s.close();
    }
  });

  it('a large event (group.updated with 20 kB of metadata) arrives whole', async () => {
    const { auth } = await game();
    const g = await group(auth);
    const s = await subscribe(port, g.id, auth);
    const metadata = { blob: 'é'.repeat(10_000), list: Array.from({ length: 200 }, (_, i) => `entry-${i}`) };
    expect((await t.http.patch(`/v1/groups/${g.id}`).set(auth).send({ metadata })).status).toBe(200);
    const e = await s.waitFor(() => s.events().find((x) => x.type === 'group.updated'));
    expect(e.group.metadata).toEqual(metadata);
  });

  it('a subscriber that disconnects is dropped', async () => {
    const streams = t.app.get(EventStreams);
    const { auth } = await game();
    const g = await group(auth);
    const before = streams.size;
    const s = await subscribe(port, g.id, auth);
    expect(streams.size).toBe(before + 1);
    s.close();
    await s.ended;
    const until = Date.now() + 3_000;
    while (streams.size !== before && Date.now() < until) await sleep(20);
    expect(streams.size).toBe(before);
    await join(auth, g.id, 'after-close'); // writing to nobody must not fail
  });
});

describe('two instances on one database (startTestApp twice in this process)', () => {
  // SPEC §1 / DECISIONS §25 run several instances on one database; startTestApp(env, db) is the
  // project's way to start a second one. Both tests fail today: see the report (INSTANCE_ID).
  let t2: TestApp;
  let port2: number;
  beforeAll(async () => {
    t2 = await startTestApp(ENV, t.db);
    port2 = await listen(t2);
  });
  afterAll(() => t2?.close());

  it('an event caused on one instance reaches a subscriber on the other (NOTIFY), once', async () => {
    const { auth } = await game();
    const g = await group(auth);
    const remote = await subscribe(port2, g.id, auth);
    const local = await subscribe(port, g.id, auth);
    const member = await join(auth, g.id, 'erin'); // committed through instance 1
    const e = await local.waitFor(() => joinedOf(local, 'erin'));
    const r = await remote.waitFor(() => joinedOf(remote, 'erin'));
    expect(r).toEqual(e);
    expect(r.member.id).toBe(member.id);
    await sleep(200);
    expect(local.events()).toHaveLength(1);
    expect(remote.events()).toHaveLength(1);
  });

  it('a large event (over 8000 bytes) crosses instances by reference and arrives whole', async () => {
    const { auth } = await game();
    const g = await group(auth);
    const remote = await subscribe(port2, g.id, auth);
    const metadata = { blob: 'x'.repeat(12_000), unicode: '騎士団'.repeat(500) };
    expect(Buffer.byteLength(JSON.stringify(metadata))).toBeGreaterThan(8000);
    expect((await t.http.patch(`/v1/groups/${g.id}`).set(auth).send({ metadata })).status).toBe(200);
    const e = await remote.waitFor(() => remote.events().find((x) => x.type === 'group.updated'));
    expect(e.group.metadata).toEqual(metadata);
    expect(e).toEqual(await outboxBody(e.id));
  });
});

/**
 * A second instance loaded the way a second process has it: its own copy of every module
 * (jest.isolateModules), so process-level state such as the notification origin is its own.
 */
async function startIsolatedApp(db: TestDatabase): Promise<{ app: NestFastifyApplication; http: TestAgent; port: number }> {
  let factory!: typeof import('../../src/app.factory');
  let config!: typeof import('../../src/config/settings');
  jest.isolateModules(() => {
    factory = require('../../src/app.factory');
    config = require('../../src/config/settings');
  });
  const app = await factory.createApp(
    config.parseSettings({ DATABASE_URL: db.url, NODE_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', DATABASE_POOL_MAX: '3', ...ENV }),
  );
  await app.listen(0, '127.0.0.1');
  return { app, http: request(app.getHttpServer()), port: (app.getHttpServer().address() as AddressInfo).port };
}

describe('two instances on one database (the second with its own module state, as a second process)', () => {
  let other: Awaited<ReturnType<typeof startIsolatedApp>>;
  beforeAll(async () => {
    other = await startIsolatedApp(t.db);
  });
  afterAll(() => other?.app.close());

  it('an event caused on one instance reaches a subscriber on the other (NOTIFY, inline), and each subscriber gets it once', async () => {
    const { auth } = await game();
    const g = await group(auth);
    const remote = await subscribe(other.port, g.id, auth);
    const local = await subscribe(port, g.id, auth);
    const member = await join(auth, g.id, 'erin');
    const e = await local.waitFor(() => joinedOf(local, 'erin'));
    const r = await remote.waitFor(() => joinedOf(remote, 'erin'));
    expect(r).toEqual(e);
    expect(r.member.id).toBe(member.id);
    const rf = remote.frames.find((f) => f.id === e.id)!;
    expect(rf.raw).toBe(`id: ${e.id}\nevent: member.joined\ndata: ${rf.data}`);
    await sleep(300);
    expect(local.events()).toHaveLength(1); // the committing instance does not hear itself twice
    expect(remote.events()).toHaveLength(1);
  });

  it('an event caused on the other instance reaches this one', async () => {
    const { auth } = await game();
    const g = await group(auth);
    const s = await subscribe(port, g.id, auth);
    expect((await other.http.post(`/v1/groups/${g.id}/join`).set(auth).send({ userId: 'frank' })).status).toBe(201);
    const e = await s.waitFor(() => joinedOf(s, 'frank'));
    expect(e).toEqual(await outboxBody(e.id));
  });

  it('a large event (over 8000 bytes) crosses by reference and arrives whole', async () => {
    const { auth } = await game();
    const g = await group(auth);
    const remote = await subscribe(other.port, g.id, auth);
    const metadata = { blob: 'x'.repeat(12_000), unicode: '騎士団'.repeat(500) };
    expect((await t.http.patch(`/v1/groups/${g.id}`).set(auth).send({ metadata })).status).toBe(200);
    const e = await remote.waitFor(() => remote.events().find((x) => x.type === 'group.updated'));
    expect(e.group.metadata).toEqual(metadata);
    expect(e).toEqual(await outboxBody(e.id));
  });

  it('a rolled-back mutation reaches no instance', async () => {
    const { auth } = await game();
    const g = await group(auth);
    await join(auth, g.id, 'gina');
    const remote = await subscribe(other.port, g.id, auth);
    expect((await t.http.post(`/v1/groups/${g.id}/join`).set(auth).send({ userId: 'gina' })).status).toBe(409);
    await join(auth, g.id, 'control');
    await remote.waitFor(() => joinedOf(remote, 'control'));
    expect(remote.events().map((e) => e.member?.userId)).toEqual(['control']);
  });
});

describe('shutdown', () => {
  it('the stream ends cleanly when the app closes', async () => {
    const t3 = await startTestApp(ENV, t.db);
    const port3 = await listen(t3);
    const { auth } = await game();
    const g = await group(auth);
    const s = await subscribe(port3, g.id, auth);
    expect(s.status).toBe(200);
    const started = Date.now();
    await t3.close();
    let timer: NodeJS.Timeout | undefined;
    const end = await Promise.race([
      s.ended,
      new Promise((resolve) => (timer = setTimeout(() => resolve({ complete: false, error: 'still open 5 s after close' }), 5_000))),
    ]);
    clearTimeout(timer);
    expect(end).toEqual({ complete: true });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
