import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SvcEvent } from '../../src/events/event';
import { DeliverySender } from '../../src/webhooks/delivery-sender';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker';
import { DataSource } from 'typeorm';
import { AUTO_DISABLE_AFTER } from '../../src/webhooks/backoff';
import { PER_ENDPOINT_IN_FLIGHT, WORKER_BATCH } from '../../src/webhooks/delivery-window';
import { untakenSql } from '../../src/webhooks/position-sql';
import type { AttemptRecord, ClaimedDelivery } from '../../src/webhooks/webhook-rows';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { joinOk, postGroup } from '../helpers/groups';
import { journalEvents } from '../helpers/journal';
import { EVENT_ID, ISO_MS, UUID } from '../helpers/shapes';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { listenLocal } from '../helpers/webhook-receiver';
import { tickPastHorizon } from '../helpers/delivery-ticks';

/**
 * Webhook delivery end to end: SPEC §3 Webhook delivery, §5 rule 5, §6 Webhook delivery, §8
 * (attempts, timeout, backoff, auto-disable); DECISIONS §13 (delivery id, UTF-8 key), §25
 * (each attempt claimed by exactly one worker). A local receiver stands in for the studio; the
 * worker is driven with `tick()` (its 5 s timer is off, so nothing runs behind a test's back).
 */

// ---------------------------------------------------------------------------------------------
// the receiver

interface Received {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, any> | null;
  at: number;
}
type Reply = number | 'hang' | { status: number; headers?: Record<string, string>; delayMs?: number };
type Responder = (rec: Received, nth: number) => Reply;

interface Receiver {
  url: string;
  port: number;
  received: Received[];
  respond: Responder;
  close(): Promise<void>;
}

const servers: Server[] = [];

async function receiver(respond: Responder | number = 200): Promise<Receiver> {
  const rx: Receiver = {
    url: '',
    port: 0,
    received: [],
    respond: typeof respond === 'number' ? () => respond : respond,
    close: async () => undefined,
  };
  const local = await listenLocal((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: Record<string, any> | null = null;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = null;
      }
      const rec: Received = { path: req.url ?? '', method: req.method ?? '', headers: req.headers, raw, body, at: Date.now() };
      rx.received.push(rec);
      const reply = rx.respond(rec, rx.received.length);
      if (reply === 'hang') return;
      const r = typeof reply === 'number' ? { status: reply } : reply;
      const send = () => {
        res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
        res.end('{"ok":true}');
      };
      if (r.delayMs) setTimeout(send, r.delayMs);
      else send();
    });
  });
  servers.push(local.server);
  rx.port = local.port;
  rx.url = local.url;
  rx.close = local.close;
  return rx;
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

// ---------------------------------------------------------------------------------------------
// the app and helpers

const ENV = { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' };
const MIN = 60_000;
const HOUR = 60 * MIN;

let t: TestApp;
const tick = () => tickPastHorizon(t.app);

beforeAll(async () => {
  t = await startTestApp(ENV);
});
afterEach(async () => {
  // Every test starts with no endpoint anywhere: a tick only ever sends what that test queued.
  await t.db.query('DELETE FROM webhook_deliveries');
  await t.db.query('DELETE FROM webhook_endpoints');
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve())))));
});
afterAll(() => t?.close());

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
  now: Date;
}

/** The endpoint's delivery rows: a delivery has one once the worker has recorded its first result. */
async function deliveries(endpointId: string): Promise<DeliveryRow[]> {
  return t.db.query<DeliveryRow>(`SELECT d.*, now() AS now FROM webhook_deliveries d WHERE endpoint_id = $1 ORDER BY created_at, id`, [endpointId]);
}

/**
 * The endpoint's deliveries not yet taken up, in the shape of the rows their first results will
 * write: a commit writes no row, the events after the endpoint's position are its queue.
 */
async function queued(endpointId: string): Promise<DeliveryRow[]> {
  return t.db.query<DeliveryRow>(`SELECT u.*, now() AS now FROM (${untakenSql('p.endpoint_id = $1')}) u ORDER BY created_at, id`, [endpointId]);
}

interface LoggedDelivery {
  id: string;
  eventId: string;
  eventType: string | null;
  status: string;
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
}

/** The endpoint's delivery log, as the game reads it (GET /v1/webhooks/:id/deliveries). */
async function logged(auth: Record<string, string>, endpointId: string): Promise<LoggedDelivery[]> {
  const r = await t.http.get(`/v1/webhooks/${endpointId}/deliveries`).set(auth);
  expect(r.status).toBe(200);
  return r.body.items as LoggedDelivery[];
}

/** Brings every pending attempt of these endpoints forward to now (the backoff schedule is tested on the row). */
async function makeDue(...endpointIds: string[]): Promise<void> {
  await t.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now(), lease_until = NULL WHERE status = 'pending' AND endpoint_id = ANY($1::uuid[])`, [endpointIds]);
}

async function outboxBody(eventId: string): Promise<SvcEvent> {
  const [row] = await t.db.query<{ body: SvcEvent }>(`SELECT body FROM ${journalEvents()} WHERE id = $1`, [eventId]);
  return row.body;
}

function game(app: TestApp = t) {
  return authedGame(app);
}

interface Hook {
  id: string;
  secret: string;
  url: string;
  format: string;
  events: string[];
}

async function hook(auth: Record<string, string>, body: Record<string, unknown>, app: TestApp = t): Promise<Hook> {
  const r = await app.http.post('/v1/webhooks').set(auth).send(body);
  if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${r.text}`);
  return r.body as Hook;
}

async function patchHook(auth: Record<string, string>, id: string, body: Record<string, unknown>): Promise<Hook & { disabledAt: string | null }> {
  const r = await t.http.patch(`/v1/webhooks/${id}`).set(auth).send(body);
  if (r.status !== 200) throw new Error(`patch webhook: ${r.status} ${r.text}`);
  return r.body;
}

async function listed(auth: Record<string, string>, id: string): Promise<{ disabledAt: string | null }> {
  const r = await t.http.get('/v1/webhooks').query({ limit: '100' }).set(auth);
  return r.body.items.find((i: { id: string }) => i.id === id);
}

function publicGroup(auth: Record<string, string>, app: TestApp = t): Promise<{ id: string }> {
  return postGroup(app, auth, { kind: 'guild', name: 'Knights', visibility: 'public' });
}

function join(auth: Record<string, string>, groupId: string, userId: string, app: TestApp = t) {
  return joinOk<{ id: string; userId: string; joinedAt: string }>(app, auth, groupId, userId);
}

let bans = 0;
async function ban(auth: Record<string, string>, userId = `banned-${++bans}`, extra: Record<string, unknown> = {}, app: TestApp = t) {
  const r = await app.http.post('/v1/bans').set(auth).send({ userId, ...extra });
  if (r.status !== 201) throw new Error(`ban: ${r.status} ${r.text}`);
  return userId;
}

/** What a receiver does: HMAC over `<x-svc-timestamp>.<raw body>`, key = the secret as UTF-8, constant-time compare. */
function signatureValid(rec: Received, secret: string): boolean {
  const ts = String(rec.headers['x-svc-timestamp']);
  const want = Buffer.from(`v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${ts}.`).update(rec.raw).digest('hex')}`);
  const got = Buffer.from(String(rec.headers['x-svc-signature'] ?? ''));
  return got.length === want.length && timingSafeEqual(got, want);
}

async function waitFor(cond: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const near = (actualMs: number, expectedMs: number, toleranceMs = 3000) => Math.abs(actualMs - expectedMs) <= toleranceMs;

// ---------------------------------------------------------------------------------------------

describe('enqueueing (in the mutation\'s transaction)', () => {
  // A commit writes no delivery row: its event, after each endpoint's position, is the queued
  // delivery, which the delivery log lists as pending with no attempt until the worker sends it.
  it('one pending delivery per matching enabled endpoint of the game exists as soon as the call returns', async () => {
    const { auth } = await game();
    const other = await game();
    const g = await publicGroup(auth);
    const all = await hook(auth, { url: 'http://127.0.0.1:9/all' });
    const joined = await hook(auth, { url: 'http://127.0.0.1:9/joined', events: ['member.joined'] });
    const bannedOnly = await hook(auth, { url: 'http://127.0.0.1:9/banned', events: ['game.user.banned'] });
    const muted = await hook(auth, { url: 'http://127.0.0.1:9/muted' });
    await patchHook(auth, muted.id, { disabled: true });
    const foreign = await hook(other.auth, { url: 'http://127.0.0.1:9/foreign' });

    const member = await join(auth, g.id, 'alice');
    const [{ now }] = await t.db.query<{ now: Date }>('SELECT now() AS now');
    const [dAll] = await logged(auth, all.id);
    const [dJoined] = await logged(auth, joined.id);
    expect(await logged(auth, all.id)).toHaveLength(1);
    expect(await logged(auth, joined.id)).toHaveLength(1);
    expect(await logged(auth, bannedOnly.id)).toHaveLength(0);
    expect(await logged(auth, muted.id)).toHaveLength(0);
    expect(await logged(other.auth, foreign.id)).toHaveLength(0);

    for (const d of [dAll, dJoined]) {
      expect(d).toMatchObject({ id: expect.stringMatching(UUID), eventType: 'member.joined', status: 'pending', attempts: 0, lastAttemptAt: null, deliveredAt: null });
      expect(Date.parse(d.nextAttemptAt!)).toBeLessThanOrEqual(now.getTime());
      expect(now.getTime() - Date.parse(d.nextAttemptAt!)).toBeLessThan(10_000);
    }
    expect(dAll.eventId).toBe(dJoined.eventId);
    expect(dAll.id).not.toBe(dJoined.id);
    const body = await outboxBody(dAll.eventId);
    expect(body).toMatchObject({ id: dAll.eventId, type: 'member.joined', groupId: g.id, member: { id: member.id, userId: 'alice' } });

    // Same transaction: the member row and the event's journal row, which is both deliveries,
    // were written by one xid; no delivery row was.
    const [m] = await t.db.query<{ x: string }>(`SELECT xmin::text AS x FROM members WHERE id = $1`, [member.id]);
    const [o] = await t.db.query<{ x: string }>(`SELECT xmin::text AS x FROM journal WHERE id = ($1 || '00000000')::uuid`, [dAll.eventId]);
    expect(o.x).toBe(m.x);
    expect(await t.db.query(`SELECT 1 FROM webhook_deliveries WHERE event_id = $1`, [dAll.eventId])).toEqual([]);

    await ban(auth, 'mallory');
    expect(await logged(auth, all.id)).toHaveLength(2);
    expect(await logged(auth, joined.id)).toHaveLength(1);
    expect(await logged(auth, bannedOnly.id)).toHaveLength(1);
    expect(await logged(auth, muted.id)).toHaveLength(0);
    expect(await logged(other.auth, foreign.id)).toHaveLength(0);
  });

  it('a rolled-back mutation (join refused with 409 or 403) enqueues nothing', async () => {
    const { auth } = await game();
    const open = await publicGroup(auth);
    const closed = (await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'Closed', visibility: 'invite-only' })).body;
    const h = await hook(auth, { url: 'http://127.0.0.1:9/x' });
    await join(auth, open.id, 'bob');
    const before = await logged(auth, h.id);
    expect(before).toEqual([expect.objectContaining({ status: 'pending', attempts: 0 })]);
    const outboxBefore = await t.db.query(`SELECT id FROM ${journalEvents()}`);

    const again = await t.http.post(`/v1/groups/${open.id}/join`).set(auth).send({ userId: 'bob' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('already_member');
    const refused = await t.http.post(`/v1/groups/${closed.id}/join`).set(auth).send({ userId: 'carol' });
    expect(refused.status).toBe(403);

    expect(await logged(auth, h.id)).toEqual(before);
    expect(await t.db.query(`SELECT id FROM ${journalEvents()}`)).toHaveLength(outboxBefore.length);
    await tick();
    expect((await deliveries(h.id)).map((d) => [d.id, d.attempts])).toEqual([[before[0].id, 1]]);
    expect(await queued(h.id)).toEqual([]);
  });
});

/**
 * The delivery id as the test works it out (migration DerivedDeliveryIds): the event id's 48 bits
 * of time, then the SHA-256 of the endpoint id's 16 bytes and the event id's 12, with UUID v7's
 * version and variant.
 */
function derivedDeliveryId(endpointId: string, eventId: string): string {
  const h = createHash('sha256').update(Buffer.from(endpointId.replace(/-/g, ''), 'hex')).update(Buffer.from(eventId, 'hex')).digest('hex');
  const hex = `${eventId.slice(0, 12)}7${h.slice(0, 3)}${'89ab'[parseInt(h[3], 16) % 4]}${h.slice(4, 19)}`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('delivery ids, derived from the endpoint and the event', () => {
  it('each delivery is named by its endpoint and event: a UUID v7 carrying the event\'s millisecond, sent as x-svc-delivery-id', async () => {
    const rx = await receiver(200);
    const { auth } = await game();
    const g = await publicGroup(auth);
    const first = await hook(auth, { url: rx.url });
    const second = await hook(auth, { url: rx.url });
    await join(auth, g.id, 'alice');
    await join(auth, g.id, 'bob');
    const rows = [...(await queued(first.id)), ...(await queued(second.id))];
    expect(rows).toHaveLength(4);
    for (const d of rows) {
      expect(d.id).toMatch(UUID_V7);
      expect(d.id).toBe(derivedDeliveryId(d.endpoint_id, d.event_id));
      expect(d.id.replace(/-/g, '').slice(0, 12)).toBe(d.event_id.slice(0, 12));
    }
    expect(new Set(rows.map((d) => d.id)).size).toBe(4);
    await tick();
    expect(rx.received.map((r) => r.headers['x-svc-delivery-id']).sort()).toEqual(rows.map((d) => d.id).sort());
    // The rows the results wrote carry the same ids.
    const written = [...(await deliveries(first.id)), ...(await deliveries(second.id))];
    expect(written.map((d) => d.id).sort()).toEqual(rows.map((d) => d.id).sort());
  });

  it('the SQL function is the same function as the test\'s over many random pairs, and is inlined into the statements that call it', async () => {
    const pairs = await t.db.query<{ endpoint: string; event: string; id: string }>(
      `SELECT endpoint, event, svc_delivery_id(endpoint, event)::text AS id
       FROM (SELECT gen_random_uuid() AS endpoint, substr(md5(random()::text), 1, 12) || substr(md5(random()::text), 1, 12) AS event
             FROM generate_series(1, 500)) AS x`,
    );
    expect(pairs.filter((p) => p.id !== derivedDeliveryId(p.endpoint, p.event))).toEqual([]);
    // A call a row would cost the claims and the delivery log a function call per event read:
    // given columns, as they give it, the plan shows the expression instead.
    const plan = await t.db.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (VERBOSE) SELECT svc_delivery_id(w.id, e.id) FROM webhook_endpoints w, jsonb_to_recordset('[]') AS e(id text)`,
    );
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('sha256');
    expect(text).not.toContain('svc_delivery_id');
  });
});

describe('svc format: headers, signature, body', () => {
  it('sends one signed POST per delivery with the svc headers; the row becomes delivered', async () => {
    const rx = await receiver(200);
    const { gameId, auth } = await game();
    const g = await publicGroup(auth);
    const secret = 'sécret-ключ-🔑-0123456789';
    const h = await hook(auth, { url: `${rx.url}?k=1`, secret, events: ['member.joined'] });
    const member = await join(auth, g.id, 'dora');
    const [d] = await queued(h.id);

    await tick();
    expect(rx.received).toHaveLength(1);
    const rec = rx.received[0];
    expect(rec.method).toBe('POST');
    expect(rec.path).toBe('/hook?k=1');
    expect(rec.headers['content-type']).toMatch(/^application\/json\b/);
    expect(rec.headers['x-svc-event']).toBe('member.joined');
    expect(rec.headers['x-svc-event-id']).toMatch(EVENT_ID);
    expect(rec.headers['x-svc-event-id']).toBe(rec.body!.id);
    expect(rec.headers['x-svc-event-id']).toBe(d.event_id);
    expect(rec.headers['x-svc-delivery-id']).toBe(d.id);
    const ts = String(rec.headers['x-svc-timestamp']);
    expect(ts).toMatch(ISO_MS);
    expect(Math.abs(Date.parse(ts) - rec.at)).toBeLessThan(5_000);
    expect(rec.headers['x-svc-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(signatureValid(rec, secret)).toBe(true);
    expect(signatureValid(rec, 'sécret-ключ-🔑-012345678')).toBe(false);

    // The body is the JSON event, exactly as staged (DECISIONS §9: the Member nested under `member`).
    expect(rec.body).toEqual(await outboxBody(d.event_id));
    expect(rec.body).toMatchObject({
      id: d.event_id,
      type: 'member.joined',
      gameId,
      groupId: g.id,
      occurredAt: expect.stringMatching(ISO_MS),
      member: { id: member.id, groupId: g.id, userId: 'dora', status: 'active', roles: expect.any(Array), joinedAt: member.joinedAt },
    });

    const [after] = await deliveries(h.id);
    expect(after).toMatchObject({ id: d.id, status: 'delivered', attempts: 1, last_status: 200, last_error: null, completed_at: expect.any(Date) });
    await makeDue(h.id);
    await tick();
    expect(rx.received).toHaveLength(1);
  });

  it('a user-scoped event (game.user.banned) carries svcUserId, reason, expiresAt and no groupId; a generated secret signs it', async () => {
    const rx = await receiver(204);
    const { gameId, auth } = await game();
    const h = await hook(auth, { url: rx.url });
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    await ban(auth, 'eve', { reason: 'aimbot', expiresAt });
    await tick();
    expect(rx.received).toHaveLength(1);
    const rec = rx.received[0];
    expect(rec.headers['x-svc-event']).toBe('game.user.banned');
    expect(rec.body).toMatchObject({ type: 'game.user.banned', gameId, svcUserId: 'eve', reason: 'aimbot' });
    expect(Date.parse(rec.body!.expiresAt)).toBe(Date.parse(expiresAt));
    expect(rec.body).not.toHaveProperty('groupId');
    expect(signatureValid(rec, h.secret)).toBe(true);
    expect((await deliveries(h.id))[0]).toMatchObject({ status: 'delivered', last_status: 204 });
  });

  it('two endpoints get one event with the same event id, distinct delivery ids, each signed with its own secret', async () => {
    const rx1 = await receiver(200);
    const rx2 = await receiver(200);
    const { auth } = await game();
    const h1 = await hook(auth, { url: rx1.url, secret: 'first-secret-0123456789' });
    const h2 = await hook(auth, { url: rx2.url, secret: 'second-secret-0123456789' });
    await ban(auth);
    await tick();
    const [a] = rx1.received;
    const [b] = rx2.received;
    expect(a.headers['x-svc-event-id']).toBe(b.headers['x-svc-event-id']);
    expect(a.headers['x-svc-delivery-id']).not.toBe(b.headers['x-svc-delivery-id']);
    expect(a.headers['x-svc-delivery-id']).toBe((await deliveries(h1.id))[0].id);
    expect(b.headers['x-svc-delivery-id']).toBe((await deliveries(h2.id))[0].id);
    expect(signatureValid(a, h1.secret)).toBe(true);
    expect(signatureValid(b, h2.secret)).toBe(true);
    expect(signatureValid(a, h2.secret)).toBe(false);
  });
});

describe('discord and slack formats', () => {
  const unsigned = (rec: Received) => {
    expect(rec.headers['content-type']).toMatch(/^application\/json\b/);
    expect(rec.headers['x-svc-signature']).toBeUndefined();
    expect(rec.headers['x-svc-timestamp']).toBeUndefined();
  };

  it('discord: an unsigned embed payload', async () => {
    const rx = await receiver(204);
    const { auth } = await game();
    const g = await publicGroup(auth);
    await hook(auth, { url: rx.url, format: 'discord', events: ['member.joined'] });
    await join(auth, g.id, 'frank');
    await tick();
    expect(rx.received).toHaveLength(1);
    const rec = rx.received[0];
    unsigned(rec);
    expect(Array.isArray(rec.body!.embeds)).toBe(true);
    expect(rec.body!.embeds[0].title).toContain('member.joined');
    expect(JSON.stringify(rec.body)).toContain('frank');
  });

  it('slack: an unsigned Block Kit payload', async () => {
    const rx = await receiver(200);
    const { auth } = await game();
    await hook(auth, { url: rx.url, format: 'slack' });
    await ban(auth, 'grace');
    await tick();
    expect(rx.received).toHaveLength(1);
    const rec = rx.received[0];
    unsigned(rec);
    expect(rec.body!.text).toContain('game.user.banned');
    expect(Array.isArray(rec.body!.blocks)).toBe(true);
    expect(JSON.stringify(rec.body!.blocks)).toContain('grace');
  });

  it('a PATCHed format applies to deliveries already queued (svc → discord, and discord → svc)', async () => {
    const rx1 = await receiver(200);
    const rx2 = await receiver(200);
    const { auth } = await game();
    const toDiscord = await hook(auth, { url: rx1.url });
    const toSvc = await hook(auth, { url: rx2.url, format: 'discord' });
    await ban(auth, 'heidi');
    expect(await queued(toDiscord.id)).toHaveLength(1);
    expect(await queued(toSvc.id)).toHaveLength(1);
    await patchHook(auth, toDiscord.id, { format: 'discord' });
    await patchHook(auth, toSvc.id, { format: 'svc' });
    await tick();
    expect(rx1.received).toHaveLength(1);
    unsigned(rx1.received[0]);
    expect(Array.isArray(rx1.received[0].body!.embeds)).toBe(true);
    expect(rx2.received).toHaveLength(1);
    expect(rx2.received[0].body).toMatchObject({ type: 'game.user.banned', svcUserId: 'heidi' });
    expect(signatureValid(rx2.received[0], toSvc.secret)).toBe(true);
  });
});

describe('routing', () => {
  it('a slow receiver holds up neither another endpoint nor events committed while it hangs', async () => {
    const slow = await receiver(() => 'hang');
    const fast = await receiver(200);
    const a = await game();
    const b = await game();
    await hook(a.auth, { url: slow.url });
    await hook(b.auth, { url: fast.url });
    for (let i = 0; i < 12; i++) await ban(a.auth, `slow-${i}`); // more than one endpoint's share of the window
    const running = tick(); // the slow sends hang until their 10 s timeout
    // Well inside that timeout: a loaded two-core machine once took more than 3 s to open all twelve.
    const deadline = Date.now() + 6_000;
    while (slow.received.length < 12 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // The only endpoint with due work: it may go beyond its share, up to the window.
    expect(slow.received.length).toBe(12);
    const startedAt = Date.now();
    await ban(b.auth, 'fast-1'); // committed while the tick waits on the hanging sends
    while (fast.received.length < 1 && Date.now() < startedAt + 3_000) await new Promise((r) => setTimeout(r, 20));
    expect(fast.received.map((r) => r.body!.type)).toEqual(['game.user.banned']);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    await slow.close(); // the hanging sends fail at once; the tick ends
    await running;
  });

  it('the only endpoint with due work fills the whole window (50 in flight), not just its share of 10', async () => {
    const rx = await receiver(() => ({ status: 200, delayMs: 3_000 }));
    const { auth } = await game();
    const h = await hook(auth, { url: rx.url });
    for (let i = 0; i < WORKER_BATCH + 10; i++) await ban(auth, `lone-${i}`);
    const running = tick();
    const deadline = Date.now() + 2_500;
    while (rx.received.length < WORKER_BATCH && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    // None answered yet (3 s): all of these are in flight at once, and the window holds the rest back.
    expect(rx.received.length).toBe(WORKER_BATCH);
    expect(WORKER_BATCH).toBeGreaterThan(PER_ENDPOINT_IN_FLIGHT);
    await running;
    expect(rx.received).toHaveLength(WORKER_BATCH + 10);
    expect((await deliveries(h.id)).every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
  });

  it('two endpoints with due work at once: each keeps to its share, and a slow one holds up none of the other\'s backlog', async () => {
    // An endpoint's first attempts go out a batch at a time (its position is leased to the batch
    // until the results are written), so a receiver that hangs until the timeout would hold its own
    // backlog that long: this one answers late instead, long after the fast backlog is done.
    const SLOW_MS = 4_000;
    const slow = await receiver(() => ({ status: 200, delayMs: SLOW_MS }));
    // What the slow endpoint had in flight when the fast one's third share went out.
    let slowWhenFastThird = -1;
    const fast = await receiver((_r, n) => {
      if (n === 2 * PER_ENDPOINT_IN_FLIGHT + 1) slowWhenFastThird = slow.received.length;
      return { status: 200, delayMs: 20 };
    });
    const a = await game();
    const b = await game();
    await hook(a.auth, { url: slow.url });
    const hf = await hook(b.auth, { url: fast.url });
    for (let i = 0; i < 3 * PER_ENDPOINT_IN_FLIGHT; i++) {
      await ban(a.auth, `slow-${i}`);
      await ban(b.auth, `fast-${i}`);
    }
    const startedAt = Date.now();
    const running = tick();
    // While both have due work the slow one gets its share and no more, and the fast one drains its
    // whole backlog meanwhile, a share at a time.
    await waitFor(() => fast.received.length === 3 * PER_ENDPOINT_IN_FLIGHT, 5_000);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(slowWhenFastThird).toBe(PER_ENDPOINT_IN_FLIGHT);
    await waitFor(async () => (await deliveries(hf.id)).filter((d) => d.status === 'delivered').length === 3 * PER_ENDPOINT_IN_FLIGHT, 3_000);
    expect(slow.received).toHaveLength(PER_ENDPOINT_IN_FLIGHT);
    // Once the fast endpoint has nothing left, the slow one is alone and may borrow free slots: the
    // rest of its backlog goes out at once, all of it in flight together, beyond its share.
    await waitFor(() => slow.received.length === 3 * PER_ENDPOINT_IN_FLIGHT, SLOW_MS + 3_000);
    const rest = slow.received.slice(PER_ENDPOINT_IN_FLIGHT).map((r) => r.at);
    expect(Math.min(...rest) - slow.received[0].at).toBeGreaterThanOrEqual(SLOW_MS - 100);
    expect(Math.max(...rest) - Math.min(...rest)).toBeLessThan(SLOW_MS);
    await running;
  });

  it('an endpoint receives only the types of its events filter; [] receives all', async () => {
    const only = await receiver(200);
    const all = await receiver(200);
    const { auth } = await game();
    const g = await publicGroup(auth);
    await hook(auth, { url: only.url, events: ['game.user.banned'] });
    await hook(auth, { url: all.url, events: [] });
    await join(auth, g.id, 'ivan');
    await ban(auth, 'judy');
    await tick();
    expect(only.received.map((r) => r.body!.type)).toEqual(['game.user.banned']);
    expect(all.received.map((r) => r.body!.type).sort()).toEqual(['game.user.banned', 'member.joined']);
  });

  it('a disabled endpoint receives nothing: its queued delivery waits, new events are not queued, re-enabling sends the waiting one', async () => {
    const rx = await receiver(200);
    const { auth } = await game();
    const h = await hook(auth, { url: rx.url });
    await ban(auth, 'kim'); // queued while enabled
    await patchHook(auth, h.id, { disabled: true });
    await ban(auth, 'leo'); // published while disabled: not for this endpoint
    await tick();
    expect(rx.received).toHaveLength(0);
    const waiting = await queued(h.id);
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({ status: 'pending', attempts: 0 });
    expect((await outboxBody(waiting[0].event_id)).svcUserId).toBe('kim');

    await patchHook(auth, h.id, { disabled: false });
    await tick();
    expect(rx.received.map((r) => r.body!.svcUserId)).toEqual(['kim']);
    expect((await deliveries(h.id)).map((d) => [d.id, d.status])).toEqual([[waiting[0].id, 'delivered']]);
    expect(await queued(h.id)).toEqual([]);
  });

  it('a change of the events filter applies to the events after it; those queued before it still go out', async () => {
    const rx = await receiver(200);
    const { auth } = await game();
    const g = await publicGroup(auth);
    const h = await hook(auth, { url: rx.url });
    await ban(auth, 'olga'); // queued under the filter [] (everything)
    await patchHook(auth, h.id, { events: ['member.joined'] });
    await ban(auth, 'pat'); // after the change: not a type of the new filter
    await join(auth, g.id, 'quinn');
    await patchHook(auth, h.id, { events: ['game.user.banned'] });
    await tick();
    expect(rx.received.map((r) => [r.body!.type, r.body!.svcUserId ?? r.body!.member?.userId]).sort()).toEqual([
      ['game.user.banned', 'olga'],
      ['member.joined', 'quinn'],
    ]);
  });

  it('endpoints of another game receive nothing', async () => {
    const rxA = await receiver(200);
    const rxB = await receiver(200);
    const a = await game();
    const b = await game();
    await hook(a.auth, { url: rxA.url });
    const hb = await hook(b.auth, { url: rxB.url });
    const g = await publicGroup(a.auth);
    await join(a.auth, g.id, 'mia');
    await ban(a.auth, 'ned');
    await tick();
    expect(rxA.received.length).toBeGreaterThanOrEqual(2);
    for (const r of rxA.received) expect(r.body!.gameId).toBe(a.gameId);
    expect(rxB.received).toHaveLength(0);
    expect(await queued(hb.id)).toHaveLength(0);
    expect(await deliveries(hb.id)).toHaveLength(0);
  });
});

describe('retries', () => {
  it('500 then 200: pending with attempts 1 and next attempt in 1 minute; the retry repeats the delivery id and event id', async () => {
    const rx = await receiver((_r, n) => (n === 1 ? 500 : 200));
    const { auth } = await game();
    const h = await hook(auth, { url: rx.url });
    await ban(auth, 'olga');

    await tick();
    expect(rx.received).toHaveLength(1);
    const [d1] = await deliveries(h.id);
    expect(d1).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, completed_at: null });
    expect(near(d1.next_attempt_at.getTime() - d1.now.getTime(), MIN)).toBe(true);
    expect(near(d1.next_attempt_at.getTime() - d1.last_attempt_at!.getTime(), MIN)).toBe(true);

    await tick(); // not due yet
    expect(rx.received).toHaveLength(1);

    await makeDue(h.id);
    await tick();
    expect(rx.received).toHaveLength(2);
    const [first, second] = rx.received;
    expect(second.headers['x-svc-delivery-id']).toBe(first.headers['x-svc-delivery-id']);
    expect(second.headers['x-svc-delivery-id']).toBe(d1.id);
    expect(second.headers['x-svc-event-id']).toBe(first.headers['x-svc-event-id']);
    expect(second.body).toEqual(first.body);
    expect(signatureValid(first, h.secret) && signatureValid(second, h.secret)).toBe(true);
    const [d2] = await deliveries(h.id);
    expect(d2).toMatchObject({ id: d1.id, status: 'delivered', attempts: 2, last_status: 200 });
  });

  it('follows the backoff table 1 m, 5 m, 30 m, 2 h, 8 h; the 6th failed attempt is terminal', async () => {
    const rx = await receiver(503);
    const { auth } = await game();
    const h = await hook(auth, { url: rx.url });
    await ban(auth);
    const waits = [1 * MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 8 * HOUR];
    for (let attempt = 1; attempt <= 5; attempt++) {
      await makeDue(h.id);
      await tick();
      const [d] = await deliveries(h.id);
      expect({ attempt, status: d.status, attempts: d.attempts }).toEqual({ attempt, status: 'pending', attempts: attempt });
      expect(near(d.next_attempt_at.getTime() - d.last_attempt_at!.getTime(), waits[attempt - 1])).toBe(true);
    }
    await makeDue(h.id);
    await tick();
    const [last] = await deliveries(h.id);
    expect(last).toMatchObject({ status: 'failed', attempts: 6, last_status: 503, completed_at: expect.any(Date) });
    expect(rx.received).toHaveLength(6);
    expect(new Set(rx.received.map((r) => r.headers['x-svc-delivery-id'])).size).toBe(1);

    await t.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now(), lease_until = NULL WHERE id = $1`, [last.id]);
    await tick();
    expect(rx.received).toHaveLength(6);
  });

  it.each([408, 429, 500, 502, 503])('%i is retried', async (status) => {
    const rx = await receiver(status);
    const { auth } = await game();
    const h = await hook(auth, { url: rx.url });
    await ban(auth);
    await tick();
    const [d] = await deliveries(h.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status: status });
    expect(near(d.next_attempt_at.getTime() - d.now.getTime(), MIN)).toBe(true);
    await makeDue(h.id);
    await tick();
    expect(rx.received).toHaveLength(2);
  });

  it('an attempt made due at the very time a claim starts is claimed, though next_attempt_at keeps whole milliseconds', async () => {
    // The attempts a claim of rows makes due are retries: a first attempt that fails leaves one.
    const rx = await receiver(503);
    const { auth } = await game();
    const h = await hook(auth, { url: rx.url });
    await ban(auth);
    await tick();
    expect(await deliveries(h.id)).toEqual([expect.objectContaining({ status: 'pending', attempts: 1 })]);
    const repo = t.app.get(WebhooksRepository);
    const ds = t.app.get(DataSource);
    const room = { endpointIds: [], inFlight: [], share: PER_ENDPOINT_IN_FLIGHT, fairFree: WORKER_BATCH, borrowFree: WORKER_BATCH };
    // In one transaction now() stands still, so the race between a row made due and a claim
    // right after it (the flake this guards against) happens every time: now() in the second half
    // of its millisecond is stored rounded up, past the claim's now().
    let claimed: ClaimedDelivery[] | null = null;
    for (let tries = 0; claimed === null; tries++) {
      if (tries === 200) throw new Error('no transaction began in the second half of a millisecond');
      claimed = await ds.transaction(async (m) => {
        const [{ us }] = await m.query(`SELECT (extract(microseconds FROM now())::bigint % 1000)::int AS us`);
        if (us < 500) return null;
        await m.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [h.id]);
        const [{ roundedUp }] = await m.query(`SELECT next_attempt_at > now() AS "roundedUp" FROM webhook_deliveries WHERE endpoint_id = $1`, [h.id]);
        expect(roundedUp).toBe(true);
        return repo.claimDue(m, room);
      });
    }
    expect(claimed.map((c) => [c.endpointId, c.attempts])).toEqual([[h.id, 2]]);
  });

  it('a network error (nothing listening) is retried', async () => {
    const port = await closedPort();
    const { auth } = await game();
    const h = await hook(auth, { url: `http://127.0.0.1:${port}/hook` });
    await ban(auth);
    await tick();
    const [d] = await deliveries(h.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status: null, last_error: expect.any(String) });
    expect(near(d.next_attempt_at.getTime() - d.now.getTime(), MIN)).toBe(true);
  });

  it.each([400, 401, 403, 404, 410, 422])('%i fails at once, with no retry', async (status) => {
    const rx = await receiver(status);
    const { auth } = await game();
    const h = await hook(auth, { url: rx.url });
    await ban(auth);
    await tick();
    const [d] = await deliveries(h.id);
    expect(d).toMatchObject({ status: 'failed', attempts: 1, last_status: status, completed_at: expect.any(Date) });
    await t.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now(), lease_until = NULL WHERE id = $1`, [d.id]);
    await tick();
    expect(rx.received).toHaveLength(1);
  });

  it('a redirect is not followed and is not a delivery', async () => {
    const target = await receiver(200);
    const rx = await receiver(() => ({ status: 301, headers: { location: target.url } }));
    const { auth } = await game();
    const h = await hook(auth, { url: rx.url });
    await ban(auth);
    await tick();
    expect(rx.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    const [d] = await deliveries(h.id);
    expect(d.status).not.toBe('delivered');
    expect(d.last_status).toBe(301);
  });

  it('no response within the timeout is a retried failure (the sender with a short timeout)', async () => {
    const rx = await receiver(() => 'hang');
    const event: SvcEvent = { id: '0123456789abcdef01234567', type: 'game.user.banned', gameId: '0190a0b0-0000-7000-8000-000000000001', occurredAt: new Date().toISOString() };
    const started = Date.now();
    const result = await t.app.get(DeliverySender).send({ deliveryId: '0190a0b0-0000-7000-8000-000000000002', url: rx.url, format: 'svc', secret: 'timeout-secret-0123', previousSecret: null, event }, 300);
    const took = Date.now() - started;
    expect(rx.received).toHaveLength(1);
    expect(result.status).toBeNull();
    expect(result.outcome.kind).toBe('retry');
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(5_000);
  });

  it('the sender classifies a network error as a retry and never throws', async () => {
    const port = await closedPort();
    const event: SvcEvent = { id: '0123456789abcdef01234567', type: 'game.user.banned', gameId: '0190a0b0-0000-7000-8000-000000000001', occurredAt: new Date().toISOString() };
    const result = await t.app.get(DeliverySender).send({ deliveryId: 'x', url: `http://127.0.0.1:${port}/`, format: 'svc', secret: 'network-secret-0123', previousSecret: null, event }, 2_000);
    expect(result).toMatchObject({ status: null, outcome: { kind: 'retry' } });
  });
});

describe('recording results in batches', () => {
  async function endpointState(id: string) {
    const [row] = await t.db.query<{ consecutive_failures: number; disabled_at: Date | null }>(
      `SELECT consecutive_failures, disabled_at FROM webhook_endpoints WHERE id = $1`,
      [id],
    );
    return row;
  }

  it('one tick of mixed answers across endpoints: every row gets its own outcome, every endpoint its own run of failures', async () => {
    const ok = await receiver(200);
    const busy = await receiver(503);
    const gone = await receiver(410);
    const { auth } = await game();
    const hooks = [await hook(auth, { url: ok.url }), await hook(auth, { url: busy.url }), await hook(auth, { url: gone.url })];
    await t.db.query(`UPDATE webhook_endpoints SET consecutive_failures = 7 WHERE id = $1`, [hooks[0].id]);
    for (let i = 0; i < 15; i++) await ban(auth, `mixed-${i}`);
    await tick();
    expect([ok, busy, gone].map((rx) => rx.received.length)).toEqual([15, 15, 15]);

    const [okRows, busyRows, goneRows] = [await deliveries(hooks[0].id), await deliveries(hooks[1].id), await deliveries(hooks[2].id)];
    for (const d of okRows) expect(d).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200, last_error: null, completed_at: expect.any(Date) });
    for (const d of busyRows) {
      expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status: 503, last_error: 'HTTP 503', completed_at: null });
      expect(near(d.next_attempt_at.getTime() - d.now.getTime(), MIN)).toBe(true);
    }
    for (const d of goneRows) expect(d).toMatchObject({ status: 'failed', attempts: 1, last_status: 410, last_error: 'HTTP 410', completed_at: expect.any(Date) });
    // A success resets the run (7 before); each failure counts once.
    expect([await endpointState(hooks[0].id), await endpointState(hooks[1].id), await endpointState(hooks[2].id)]).toEqual([
      { consecutive_failures: 0, disabled_at: null },
      { consecutive_failures: 15, disabled_at: null },
      { consecutive_failures: 15, disabled_at: null },
    ]);
  });

  it('a batch counts failures in the order the attempts finished; a stale result (the row claimed again since) is ignored', async () => {
    // Rows to claim: each delivery's first attempt fails (503), leaving it pending for its second.
    const rx = await receiver(503);
    const { auth } = await game();
    const h = await hook(auth, { url: rx.url });
    for (let i = 0; i < 8; i++) await ban(auth, `ordered-${i}`);
    await tick();
    expect((await deliveries(h.id)).map((r) => [r.status, r.attempts])).toEqual(Array(8).fill(['pending', 1]));
    await makeDue(h.id);
    const repo = t.app.get(WebhooksRepository);
    const m = t.app.get(DataSource).manager;
    const room = { endpointIds: [], inFlight: [], share: PER_ENDPOINT_IN_FLIGHT, fairFree: WORKER_BATCH, borrowFree: WORKER_BATCH };
    const claimed = (await repo.claimDue(m, room)).filter((c) => c.endpointId === h.id);
    expect(claimed).toHaveLength(8);
    expect(claimed.every((c) => c.attempts === 2)).toBe(true);
    const [a, b, c, d, e, f, g, x] = claimed.map((cd) => cd.id);
    const fail = (id: string, attempts = 2): AttemptRecord => ({ id, attempts, outcome: 'retry', status: 500, error: 'HTTP 500', retryInMs: MIN, durationMs: 12 });
    const ok = (id: string, attempts = 2): AttemptRecord => ({ id, attempts, outcome: 'delivered', status: 204, error: null, retryInMs: null, durationMs: 4 });

    await t.db.query(`UPDATE webhook_endpoints SET consecutive_failures = 20 WHERE id = $1`, [h.id]);
    // fail, ok, fail, fail: the success resets the run, the two failures after it count.
    await repo.recordResults(m, [fail(a), ok(b), fail(c), fail(d)], AUTO_DISABLE_AFTER);
    expect(await endpointState(h.id)).toEqual({ consecutive_failures: 2, disabled_at: null });
    // A result for attempt 3 of a row at attempt 2 (and one for an unknown row) changes nothing:
    // the row keeps its first attempt's answer.
    await repo.recordResults(m, [ok(e, 3), ok('0190a0b0-0000-7000-8000-00000000dead')], AUTO_DISABLE_AFTER);
    expect(await endpointState(h.id)).toEqual({ consecutive_failures: 2, disabled_at: null });
    expect((await deliveries(h.id)).find((r) => r.id === e)).toMatchObject({ status: 'pending', attempts: 2, last_status: 503 });
    // Reaching the threshold inside a batch disables the endpoint.
    await t.db.query(`UPDATE webhook_endpoints SET consecutive_failures = $2 WHERE id = $1`, [h.id, AUTO_DISABLE_AFTER - 3]);
    await repo.recordResults(m, [fail(e), { ...fail(f), outcome: 'failed', retryInMs: null }, fail(g)], AUTO_DISABLE_AFTER);
    const after = await endpointState(h.id);
    expect(after.consecutive_failures).toBe(AUTO_DISABLE_AFTER);
    expect(after.disabled_at).toEqual(expect.any(Date));
    // A result recorded twice counts once: the row is no longer pending at that attempt.
    await repo.recordResults(m, [ok(x), ok(x)], AUTO_DISABLE_AFTER);
    await repo.recordResults(m, [ok(x)], AUTO_DISABLE_AFTER);
    // That success came in after the endpoint was disabled: its failures stay counted, so the
    // metrics still tell it disabled by them (svc_webhook_endpoints_disabled{reason="failures"}).
    expect(await endpointState(h.id)).toEqual(after);

    const rows = new Map((await deliveries(h.id)).map((r) => [r.id, r]));
    expect([a, b, c, d, e, f, g, x].map((id) => [rows.get(id)!.status, rows.get(id)!.last_status])).toEqual([
      ['pending', 500],
      ['delivered', 204],
      ['pending', 500],
      ['pending', 500],
      ['pending', 500],
      ['failed', 500],
      ['pending', 500],
      ['delivered', 204],
    ]);
    expect(near(rows.get(a)!.next_attempt_at.getTime() - rows.get(a)!.now.getTime(), MIN)).toBe(true);
  });
});

describe('auto-disable', () => {
  /** Drives every pending delivery of the endpoint through `rounds` attempts. */
  async function attempts(endpointId: string, rounds: number): Promise<void> {
    for (let i = 0; i < rounds; i++) {
      await makeDue(endpointId);
      await tick();
    }
  }

  it('disables an endpoint after 25 consecutive failed attempts across deliveries; a success resets the count', async () => {
    let status = 500;
    const rx = await receiver(() => status);
    const { auth } = await game();
    const h = await hook(auth, { url: rx.url, events: ['game.user.banned'] });

    // 4 deliveries x 6 attempts = 24 consecutive failures: still enabled.
    for (let i = 0; i < 4; i++) await ban(auth);
    await attempts(h.id, 6);
    expect(rx.received).toHaveLength(24);
    expect((await deliveries(h.id)).map((d) => d.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect((await listed(auth, h.id)).disabledAt).toBeNull();

    // One success resets the run.
    status = 200;
    await ban(auth);
    await tick();
    expect(rx.received).toHaveLength(25);
    status = 500;

    // 24 more failures: 24 in a row after the success, still enabled.
    for (let i = 0; i < 4; i++) await ban(auth);
    await attempts(h.id, 6);
    expect(rx.received).toHaveLength(49);
    expect((await listed(auth, h.id)).disabledAt).toBeNull();

    // The 25th consecutive failure disables it.
    await ban(auth);
    await tick();
    expect(rx.received).toHaveLength(50);
    const disabledAt = (await listed(auth, h.id)).disabledAt;
    expect(disabledAt).toMatch(ISO_MS);

    // Disabled: its pending attempt waits and new events are not queued for it.
    const pending = (await deliveries(h.id)).filter((d) => d.status === 'pending');
    expect(pending).toHaveLength(1);
    await ban(auth);
    await attempts(h.id, 2);
    expect(rx.received).toHaveLength(50);
    expect(await deliveries(h.id)).toHaveLength(10);
    expect(await queued(h.id)).toEqual([]);
  });
});

describe('shutdown', () => {
  it('closing the app waits for the in-flight delivery and records it (SPEC §1.7)', async () => {
    const rx = await receiver(() => ({ status: 200, delayMs: 1_500 }));
    // A dedicated instance with its timer on, as in production.
    const w = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' }, t.db);
    let closed = false;
    try {
      const { auth } = await game();
      const h = await hook(auth, { url: rx.url });
      await ban(auth);
      const until = Date.now() + 10_000;
      while (rx.received.length === 0 && Date.now() < until) {
        void w.app.get(DeliveryWorker).tick();
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(rx.received).toHaveLength(1);
      const started = Date.now();
      await w.close();
      closed = true;
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      const [d] = await deliveries(h.id);
      expect(d).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200 });
    } finally {
      if (!closed) await w.close();
    }
  });
  it('closing the app is not held up by a wake that came in during the last claim (another instance\'s commit)', async () => {
    const rx = await receiver(() => ({ status: 200, delayMs: 1_000 }));
    const w = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' }, t.db);
    let closed = false;
    try {
      const { auth } = await game();
      await hook(auth, { url: rx.url });
      await ban(auth);
      const worker = w.app.get(DeliveryWorker);
      const until = Date.now() + 10_000;
      while (rx.received.length === 0 && Date.now() < until) {
        void worker.tick();
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(rx.received).toHaveLength(1);
      // The send is in flight. Shutdown begins; a commit announced during the tick's last claim,
      // before it, left the tick asked to go round once more (a claim it will never make now).
      const inside = worker as unknown as { stopping: boolean; wakeRequested: boolean };
      const started = Date.now();
      const closing = w.close();
      while (!inside.stopping) await new Promise((r) => setTimeout(r, 5));
      inside.wakeRequested = true;
      await closing;
      closed = true;
      // The in-flight send (1 s) is waited for; the wake, after shutdown began, is not a reason to stay.
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      if (!closed) await w.close();
    }
  });
});

describe('several workers on one database', () => {
  let t2: TestApp;
  beforeAll(async () => {
    t2 = await startTestApp(ENV, t.db);
  });
  afterAll(() => t2?.close());

  /**
   * Twelve endpoints with ten queued deliveries each. An endpoint's position is taken by one worker
   * at a time, so two workers never share one endpoint's first attempts: what they can race for is
   * the endpoints (and, in the retry case, the rows of the retries).
   */
  async function fanOut(respond: Responder) {
    const rx = await receiver(respond);
    const { auth } = await game();
    const hooks: Hook[] = [];
    for (let i = 0; i < 12; i++) hooks.push(await hook(auth, { url: `${rx.url}?endpoint=${i}`, events: ['game.user.banned'] }));
    for (let i = 0; i < 10; i++) await ban(auth);
    const rows = await t.db.query<{ id: string }>(`SELECT id FROM (${untakenSql('p.endpoint_id = ANY($1::uuid[])')}) u`, [hooks.map((h) => h.id)]);
    expect(rows).toHaveLength(120);
    return { rx, hooks, rows };
  }

  const perDelivery = (rx: Receiver) => {
    const counts = new Map<string, number>();
    for (const r of rx.received) {
      const id = String(r.headers['x-svc-delivery-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  };

  it('two workers ticking at once never send one attempt twice (delivered case)', async () => {
    const { rx, rows } = await fanOut(() => ({ status: 200, delayMs: 20 }));
    await Promise.all([t.app.get(DeliveryWorker).tick(), t2.app.get(DeliveryWorker).tick()]);
    const counts = perDelivery(rx);
    expect(counts.size).toBe(120);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(new Set(counts.keys())).toEqual(new Set(rows.map((r) => r.id)));
    const states = await t.db.query<{ status: string; attempts: number; n: string }>(
      `SELECT status, attempts, count(*) AS n FROM webhook_deliveries WHERE id = ANY($1::uuid[]) GROUP BY 1, 2`,
      [rows.map((r) => r.id)],
    );
    expect(states).toEqual([{ status: 'delivered', attempts: 1, n: '120' }]);
  });

  it('two workers ticking at once never send one attempt twice (retry case, then the retries)', async () => {
    const { rx, rows, hooks } = await fanOut(() => ({ status: 500, delayMs: 10 }));
    const workers = [t.app.get(DeliveryWorker), t2.app.get(DeliveryWorker)];
    await Promise.all(workers.map((w) => w.tick()));
    expect(rx.received).toHaveLength(120);
    expect([...perDelivery(rx).values()].every((c) => c === 1)).toBe(true);
    await makeDue(...hooks.map((h) => h.id));
    await Promise.all([...workers, ...workers].map((w) => w.tick()));
    expect(rx.received).toHaveLength(240);
    expect([...perDelivery(rx).values()].every((c) => c === 2)).toBe(true);
    const attempts = await t.db.query<{ attempts: number; n: string }>(
      `SELECT attempts, count(*) AS n FROM webhook_deliveries WHERE id = ANY($1::uuid[]) GROUP BY 1`,
      [rows.map((r) => r.id)],
    );
    expect(attempts).toEqual([{ attempts: 2, n: '120' }]);
  });
});
