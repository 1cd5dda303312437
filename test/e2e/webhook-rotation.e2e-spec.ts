import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SweeperService } from '../../src/sweeper/sweeper.service';
import { expectError } from '../helpers/errors';
import { journalAudit } from '../helpers/journal';
import { ISO_MS } from '../helpers/shapes';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { recordingReceiver, type ReceivedDelivery, type RecordingReceiver } from '../helpers/webhook-receiver';
import { tickPastHorizon } from '../helpers/delivery-ticks';

/**
 * POST /v1/webhooks/:id/rotate-secret (docs/webhooks.md): during the grace period every signed
 * delivery carries a signature with each secret, after it only the new one's, and the old secret
 * is then dropped; unsigned formats are unaffected; the audit entry holds no secret.
 */
let t: TestApp;
const receivers: RecordingReceiver[] = [];
const tick = () => tickPastHorizon(t.app);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MISSING_UUID = '0190a0b0-0000-7000-8000-00000000dead';

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' });
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => t?.close());

async function receiver(): Promise<RecordingReceiver> {
  const rx = await recordingReceiver();
  receivers.push(rx);
  return rx;
}

async function hook(auth: Record<string, string>, body: Record<string, unknown>) {
  const r = await t.http.post('/v1/webhooks').set(auth).send(body);
  expect(r.status).toBe(201);
  return r.body as { id: string; secret: string; standardSecret: string };
}

const rotate = (auth: Record<string, string>, id: string, body?: Record<string, unknown>) => {
  const req = t.http.post(`/v1/webhooks/${id}/rotate-secret`).set(auth);
  return body === undefined ? req : req.send(body);
};

let bans = 0;
/** One event for the game's endpoints, delivered by one tick; returns what the receiver got. */
async function deliverOne(auth: Record<string, string>, rx: RecordingReceiver): Promise<ReceivedDelivery> {
  expect((await t.http.post('/v1/bans').set(auth).send({ userId: `rotated-${++bans}` })).status).toBe(201);
  const before = rx.received.length;
  await tick();
  expect(rx.received).toHaveLength(before + 1);
  return rx.received[before];
}

const standardVerifies = (secret: string, d: ReceivedDelivery) => {
  try {
    new Webhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`).verify(d.raw, d.headers);
    return true;
  } catch {
    return false;
  }
};

/** A receiver's svc check of one header (SPEC §6), with its own HMAC code. */
const svcSignedWith = (secret: string, d: ReceivedDelivery, header: string) => {
  const want = Buffer.from(`v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${d.headers['x-svc-timestamp']}.${d.raw}`).digest('hex')}`);
  const got = Buffer.from(d.headers[header] ?? '');
  return got.length === want.length && timingSafeEqual(got, want);
};

const storedPrevious = async (id: string) =>
  (await t.db.query<{ previous_secret: string | null; previous_secret_expires_at: Date | null }>(
    `SELECT previous_secret, previous_secret_expires_at FROM webhook_endpoints WHERE id = $1`,
    [id],
  ))[0];

describe('standard format', () => {
  it('with graceSeconds 2: either secret verifies during the grace period, only the new one after; the old one is then dropped', async () => {
    const rx = await receiver();
    const g = await authedGame(t);
    const h = await hook(g.auth, { url: rx.url, format: 'standard' });
    expect(standardVerifies(h.secret, await deliverOne(g.auth, rx))).toBe(true);

    const r = await rotate(g.auth, h.id, { graceSeconds: 2 });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['previousSecretExpiresAt', 'secret', 'standardSecret']);
    expect(r.body.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(r.body.secret).not.toBe(h.secret);
    expect(r.body.standardSecret).toBe(`whsec_${Buffer.from(r.body.secret, 'utf8').toString('base64')}`);
    expect(r.body.previousSecretExpiresAt).toMatch(ISO_MS);
    expect(Math.abs(Date.parse(r.body.previousSecretExpiresAt) - (Date.now() + 2000))).toBeLessThan(1500);

    const during = await deliverOne(g.auth, rx);
    const entries = during.headers['webhook-signature'].split(' ');
    expect(entries).toHaveLength(2);
    expect(standardVerifies(r.body.secret, during)).toBe(true);
    expect(standardVerifies(h.secret, during)).toBe(true);
    // The new secret's signature comes first.
    expect(standardVerifies(r.body.secret, { ...during, headers: { ...during.headers, 'webhook-signature': entries[0] } })).toBe(true);
    expect(standardVerifies(h.secret, { ...during, headers: { ...during.headers, 'webhook-signature': entries[1] } })).toBe(true);
    expect((await t.http.get('/v1/webhooks').set(g.auth)).body.items[0].previousSecretExpiresAt).toBe(r.body.previousSecretExpiresAt);

    await sleep(Date.parse(r.body.previousSecretExpiresAt) - Date.now() + 50);
    const after = await deliverOne(g.auth, rx);
    expect(after.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(standardVerifies(r.body.secret, after)).toBe(true);
    expect(standardVerifies(h.secret, after)).toBe(false);
    expect((await t.http.get('/v1/webhooks').set(g.auth)).body.items[0].previousSecretExpiresAt).toBeNull();

    // Stopped signing at once; the sweep then forgets it.
    expect((await storedPrevious(h.id)).previous_secret).toBe(h.secret);
    expect((await t.app.get(SweeperService).sweep()).previousSecretsCleared).toBeGreaterThanOrEqual(1);
    expect(await storedPrevious(h.id)).toEqual({ previous_secret: null, previous_secret_expires_at: null });
  });

  it('graceSeconds 0 drops the old secret at once', async () => {
    const rx = await receiver();
    const g = await authedGame(t);
    const h = await hook(g.auth, { url: rx.url, format: 'standard' });
    const r = await rotate(g.auth, h.id, { graceSeconds: 0, secret: 'a-brand-new-secret-0' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ secret: 'a-brand-new-secret-0', standardSecret: `whsec_${Buffer.from('a-brand-new-secret-0').toString('base64')}`, previousSecretExpiresAt: null });
    const d = await deliverOne(g.auth, rx);
    expect(standardVerifies('a-brand-new-secret-0', d)).toBe(true);
    expect(standardVerifies(h.secret, d)).toBe(false);
    expect(await storedPrevious(h.id)).toEqual({ previous_secret: null, previous_secret_expires_at: null });
  });
});

describe('svc format', () => {
  it('during the grace period x-svc-signature-previous carries the old signature; after it, only x-svc-signature (new)', async () => {
    const rx = await receiver();
    const g = await authedGame(t);
    const h = await hook(g.auth, { url: rx.url });
    const r = await rotate(g.auth, h.id, { graceSeconds: 2 });
    expect(r.status).toBe(200);

    const during = await deliverOne(g.auth, rx);
    expect(svcSignedWith(r.body.secret, during, 'x-svc-signature')).toBe(true);
    expect(svcSignedWith(h.secret, during, 'x-svc-signature-previous')).toBe(true);

    await sleep(Date.parse(r.body.previousSecretExpiresAt) - Date.now() + 50);
    const after = await deliverOne(g.auth, rx);
    expect(svcSignedWith(r.body.secret, after, 'x-svc-signature')).toBe(true);
    expect(after.headers).not.toHaveProperty('x-svc-signature-previous');
  });

  it('the default grace is an hour; a second rotation within it keeps only the secret it replaced beside the new one', async () => {
    const rx = await receiver();
    const g = await authedGame(t);
    const h = await hook(g.auth, { url: rx.url });
    const first = await rotate(g.auth, h.id);
    expect(first.status).toBe(200);
    expect(Math.abs(Date.parse(first.body.previousSecretExpiresAt) - (Date.now() + 3_600_000))).toBeLessThan(5_000);
    const second = await rotate(g.auth, h.id, {});
    expect(second.status).toBe(200);
    const d = await deliverOne(g.auth, rx);
    expect(svcSignedWith(second.body.secret, d, 'x-svc-signature')).toBe(true);
    expect(svcSignedWith(first.body.secret, d, 'x-svc-signature-previous')).toBe(true);
    expect(svcSignedWith(h.secret, d, 'x-svc-signature-previous')).toBe(false);
  });
});

it.each(['discord', 'slack'])('%s: a rotation changes nothing in what is sent (no signature either way)', async (format) => {
  const rx = await receiver();
  const g = await authedGame(t);
  const h = await hook(g.auth, { url: rx.url, format });
  const before = await deliverOne(g.auth, rx);
  expect((await rotate(g.auth, h.id, { graceSeconds: 60 })).status).toBe(200);
  const after = await deliverOne(g.auth, rx);
  for (const d of [before, after]) {
    expect(Object.keys(d.headers).filter((k) => k.startsWith('x-svc-') || k.startsWith('webhook-'))).toEqual([]);
  }
});

it('writes one audit entry webhook.secret_rotated with the grace period and no secret', async () => {
  const g = await authedGame(t);
  const h = await hook(g.auth, { url: 'https://example.com/audited', secret: 'the-original-secret-value' });
  const r = await rotate(g.auth, h.id, { secret: 'the-rotated-secret-value', graceSeconds: 120 });
  expect(r.status).toBe(200);
  const rows = await t.db.query<{ payload: Record<string, unknown>; game_id: string }>(
    `SELECT payload, game_id FROM ${journalAudit()} WHERE action = 'webhook.secret_rotated' AND target_id = $1`,
    [h.id],
  );
  expect(rows).toHaveLength(1);
  expect(rows[0].game_id).toBe(g.gameId);
  expect(rows[0].payload).toEqual({ graceSeconds: 120, previousSecretExpiresAt: r.body.previousSecretExpiresAt, generated: false });
  const text = JSON.stringify(rows[0].payload);
  for (const secret of ['the-original-secret-value', 'the-rotated-secret-value', r.body.standardSecret]) expect(text).not.toContain(secret);
});

it('no body, {} and an empty JSON body are all accepted (generated secret, default grace)', async () => {
  const g = await authedGame(t);
  const h = await hook(g.auth, { url: 'https://example.com/bodies' });
  expect((await rotate(g.auth, h.id)).status).toBe(200);
  expect((await rotate(g.auth, h.id, {})).status).toBe(200);
  expect((await t.http.post(`/v1/webhooks/${h.id}/rotate-secret`).set(g.auth).set('content-type', 'application/json').send('')).status).toBe(200);
});

it('validation: graceSeconds 0-86400 integer, secret 16-256 characters; 400 names the field and changes nothing', async () => {
  const g = await authedGame(t);
  const h = await hook(g.auth, { url: 'https://example.com/validated', secret: 'kept-secret-0123456' });
  for (const graceSeconds of [-1, 86_401, 1.5, '10', true, [5]]) {
    const r = await rotate(g.auth, h.id, { graceSeconds });
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('graceSeconds');
  }
  for (const secret of ['fifteen-chars-x', 's'.repeat(257), '', 12345678901234567]) {
    const r = await rotate(g.auth, h.id, { secret });
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('secret');
  }
  expect((await rotate(g.auth, h.id, { graceSeconds: 86_400, secret: 'sixteen-chars-xx' })).status).toBe(200);
  expect(await storedPrevious(h.id)).toMatchObject({ previous_secret: 'kept-secret-0123456' });
});

it("404 for another game's endpoint (which keeps its secret), an unknown id and a non-uuid", async () => {
  const a = await authedGame(t);
  const b = await authedGame(t);
  const h = await hook(a.auth, { url: 'https://example.com/theirs', secret: 'owner-secret-0123456' });
  expectError(await rotate(b.auth, h.id, { secret: 'stolen-secret-0123456' }), 404, 'not_found');
  expectError(await rotate(a.auth, MISSING_UUID), 404, 'not_found');
  expectError(await rotate(a.auth, 'not-a-uuid'), 404, 'not_found');
  const [row] = await t.db.query<{ secret: string }>(`SELECT secret FROM webhook_endpoints WHERE id = $1`, [h.id]);
  expect(row.secret).toBe('owner-secret-0123456');
  expect(await storedPrevious(h.id)).toEqual({ previous_secret: null, previous_secret_expires_at: null });
});
