import { Webhook } from 'standardwebhooks';
import { EVENT_TYPES } from '../../src/events/event-types';
import { friendsClient, send, uid } from '../helpers/friends';
import { postGroup } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { recordingReceiver, type ReceivedDelivery, type RecordingReceiver } from '../helpers/webhook-receiver';
import { tickPastHorizon } from '../helpers/delivery-ticks';

/**
 * The `standard` format (docs/webhooks.md): every delivery verifies with the official
 * `standardwebhooks` package given the `standardSecret` of the create response, whatever the
 * event family, and never with our own HMAC code.
 */
let t: TestApp;
const receivers: RecordingReceiver[] = [];
const tick = () => tickPastHorizon(t.app);

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' });
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => t?.close());

async function receiver(respond?: (nth: number) => number): Promise<RecordingReceiver> {
  const rx = await recordingReceiver(respond);
  receivers.push(rx);
  return rx;
}

async function standardHook(auth: Record<string, string>, url: string, extra: Record<string, unknown> = {}) {
  const r = await t.http.post('/v1/webhooks').set(auth).send({ url, format: 'standard', ...extra });
  expect(r.status).toBe(201);
  return r.body as { id: string; format: string; secret: string; standardSecret: string };
}

/** What a receiver using the library does: verify the raw body against the headers, or throw. */
const verify = (standardSecret: string, d: ReceivedDelivery) => new Webhook(standardSecret).verify(d.raw, d.headers);

/** The family of an event type: `member.joined` → member, `game.user.banned` → game. */
const family = (type: string) => type.split('.')[0];

it('create: format standard answers 201 with standardSecret, whsec_ and the base64 of the secret', async () => {
  const { auth } = await authedGame(t);
  const supplied = await standardHook(auth, 'https://example.com/h', { secret: 'sécret-ключ-0123456789' });
  expect(supplied.format).toBe('standard');
  expect(supplied.standardSecret).toBe(`whsec_${Buffer.from('sécret-ключ-0123456789', 'utf8').toString('base64')}`);
  const generated = await standardHook(auth, 'https://example.com/h2');
  expect(generated.standardSecret).toBe(`whsec_${Buffer.from(generated.secret, 'utf8').toString('base64')}`);
  // Every format's create response carries it: a PATCH to standard needs no second secret.
  const svc = await t.http.post('/v1/webhooks').set(auth).send({ url: 'https://example.com/h3' });
  expect(svc.body.standardSecret).toBe(`whsec_${Buffer.from(svc.body.secret, 'utf8').toString('base64')}`);
  expect((await t.http.get('/v1/webhooks').set(auth)).text).not.toContain('whsec_');
});

it('a delivery of every event family verifies with standardwebhooks; webhook-id is the event id', async () => {
  const rx = await receiver();
  const g = await authedGame(t);
  const h = await standardHook(g.auth, rx.url);

  const group = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Knights', visibility: 'public', creatorUserId: 'alice' });
  expect((await t.http.post(`/v1/groups/${group.id}/roles`).set(g.auth).send({ name: 'officer', priority: 10 })).status).toBe(201);
  expect((await t.http.post(`/v1/groups/${group.id}/invitations`).set(g.auth).send({})).status).toBe(201);
  expect((await t.http.post('/v1/bans').set(g.auth).send({ userId: 'cheater' })).status).toBe(201);
  expect((await send(friendsClient(t, g.gameId, g.key), uid('a'), uid('b'))).status).toBe(201);
  const closed = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'Closed', visibility: 'invite-only' });
  expect((await t.http.post(`/v1/groups/${closed.id}/join-requests`).set(g.auth).send({ userId: 'applicant' })).status).toBe(201);
  expect((await t.http.post('/v1/reports').set(g.auth).send({ reporterUserId: 'alice', subject: { type: 'user', id: 'cheater' }, category: 'cheating' })).status).toBe(201);
  expect((await t.http.delete('/v1/users/leaver').set(g.auth)).status).toBe(200);
  await tick();

  const families = new Set(EVENT_TYPES.map(family));
  const seen = new Set<string>();
  expect(rx.received.length).toBeGreaterThanOrEqual(families.size);
  for (const d of rx.received) {
    const event = verify(h.standardSecret, d) as { id: string; type: string };
    expect(event).toEqual(d.body);
    expect(d.headers['webhook-id']).toBe(event.id);
    expect(d.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(Math.abs(Number(d.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(d.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Object.keys(d.headers).filter((k) => k.startsWith('x-svc-'))).toEqual([]);
    seen.add(family(event.type));
  }
  expect([...seen].sort()).toEqual([...families].sort());
  // Signed with another secret, or tampered with, it does not verify.
  expect(() => new Webhook(`whsec_${Buffer.from('another-secret-0123456', 'utf8').toString('base64')}`).verify(rx.received[0].raw, rx.received[0].headers)).toThrow();
  expect(() => verify(h.standardSecret, { ...rx.received[0], raw: rx.received[0].raw.replace('"type"', '"type" ') })).toThrow();
});

it('a retry repeats webhook-id, with a fresh timestamp and signature that verify again', async () => {
  const rx = await receiver((n) => (n === 1 ? 503 : 200));
  const g = await authedGame(t);
  const h = await standardHook(g.auth, rx.url);
  expect((await t.http.post('/v1/bans').set(g.auth).send({ userId: 'retry-me' })).status).toBe(201);
  await tick();
  await t.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now(), lease_until = NULL WHERE endpoint_id = $1 AND status = 'pending'`, [h.id]);
  await tick();
  expect(rx.received).toHaveLength(2);
  expect(rx.received[1].headers['webhook-id']).toBe(rx.received[0].headers['webhook-id']);
  for (const d of rx.received) expect(verify(h.standardSecret, d)).toEqual(rx.received[0].body);
});

it('an endpoint PATCHed to standard signs its queued deliveries the standard way with its existing secret', async () => {
  const rx = await receiver();
  const g = await authedGame(t);
  const created = await t.http.post('/v1/webhooks').set(g.auth).send({ url: rx.url });
  expect((await t.http.post('/v1/bans').set(g.auth).send({ userId: 'queued' })).status).toBe(201);
  expect((await t.http.patch(`/v1/webhooks/${created.body.id}`).set(g.auth).send({ format: 'standard' })).body.format).toBe('standard');
  await tick();
  expect(rx.received).toHaveLength(1);
  expect(verify(created.body.standardSecret, rx.received[0])).toMatchObject({ type: 'game.user.banned' });
});
