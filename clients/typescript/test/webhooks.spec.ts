import { createHmac } from 'node:crypto';
import { DeliveryWorker } from '../../../src/webhooks/delivery-worker';
import { recordingReceiver, type ReceivedDelivery, type RecordingReceiver } from '../../../test/helpers/webhook-receiver';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationFailure } from '../src/index.js';
import { gameClient, rejection, startService, type GameClient, type Service } from './support';

/**
 * verifyWebhook on deliveries the real service sent (format svc), to a receiver on this machine;
 * the worker runs one tick at a time so that each event is delivered when the test asks.
 */
let s: Service;
let rx: RecordingReceiver;
beforeAll(async () => {
  s = await startService({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' });
  rx = await recordingReceiver();
});
afterAll(async () => {
  await rx?.close();
  await s?.t.close();
});

const SECRET = 'client-test-secret-0123456789';

async function registerWebhook(g: GameClient): Promise<string> {
  const { data, response } = await g.client.POST('/v1/webhooks', { body: { url: rx.url, secret: SECRET, format: 'svc' } });
  expect(response.status).toBe(201);
  return data!.id;
}

let bans = 0;
/** A game-wide ban (an event), delivered by one tick of the worker; what the receiver got. */
async function deliverOne(g: GameClient): Promise<ReceivedDelivery> {
  const before = rx.received.length;
  const { response } = await g.client.POST('/v1/bans', { body: { userId: `cheater-${++bans}` } });
  expect(response.status).toBe(201);
  await s.t.app.get(DeliveryWorker).tick();
  expect(rx.received).toHaveLength(before + 1);
  return rx.received[before];
}

async function failure(promise: Promise<unknown>): Promise<WebhookVerificationFailure> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(WebhookVerificationError);
  return (err as WebhookVerificationError).reason;
}

describe('verifyWebhook on real deliveries', () => {
  it('accepts the delivery as received (headers as Node gives them, or as Headers), and refuses it tampered, under another secret, or late', async () => {
    const g = await gameClient(s);
    await registerWebhook(g);
    const d = await deliverOne(g);
    expect(d.headers['x-svc-event']).toBe('game.user.banned');

    await expect(verifyWebhook({ secret: SECRET, headers: d.headers, rawBody: d.raw })).resolves.toBe(true);
    await expect(verifyWebhook({ secret: SECRET, headers: new Headers(d.headers), rawBody: Buffer.from(d.raw) })).resolves.toBe(true);

    const tampered = d.raw.replace(/cheater-\d+/, 'innocent');
    expect(tampered).not.toBe(d.raw);
    expect(await failure(verifyWebhook({ secret: SECRET, headers: d.headers, rawBody: tampered }))).toBe('signature_mismatch');
    expect(await failure(verifyWebhook({ secret: 'some-other-secret-0123456789', headers: d.headers, rawBody: d.raw }))).toBe('signature_mismatch');

    // The same body, signed with the right secret as the service would have six minutes ago: a replay.
    const sixMinutesAgo = new Date(Date.now() - 6 * 60_000).toISOString();
    const replayed = {
      ...d.headers,
      'x-svc-timestamp': sixMinutesAgo,
      'x-svc-signature': `v1=${createHmac('sha256', SECRET).update(`${sixMinutesAgo}.${d.raw}`).digest('hex')}`,
    };
    expect(await failure(verifyWebhook({ secret: SECRET, headers: replayed, rawBody: d.raw }))).toBe('timestamp_out_of_tolerance');
    await expect(verifyWebhook({ secret: SECRET, headers: replayed, rawBody: d.raw, toleranceSeconds: 3600 })).resolves.toBe(true);
  });

  it('after a rotation with grace, a receiver holding either secret verifies; without grace, only the new one', async () => {
    const g = await gameClient(s);
    const id = await registerWebhook(g);

    const rotated = await g.client.POST('/v1/webhooks/{id}/rotate-secret', { params: { path: { id } }, body: { graceSeconds: 3600 } });
    const newSecret = rotated.data!.secret;
    const during = await deliverOne(g);
    expect(during.headers['x-svc-signature-previous']).toBeDefined();
    await expect(verifyWebhook({ secret: SECRET, headers: during.headers, rawBody: during.raw })).resolves.toBe(true);
    await expect(verifyWebhook({ secret: newSecret, headers: during.headers, rawBody: during.raw })).resolves.toBe(true);

    const again = await g.client.POST('/v1/webhooks/{id}/rotate-secret', { params: { path: { id } }, body: { graceSeconds: 0 } });
    const after = await deliverOne(g);
    expect(after.headers['x-svc-signature-previous']).toBeUndefined();
    await expect(verifyWebhook({ secret: again.data!.secret, headers: after.headers, rawBody: after.raw })).resolves.toBe(true);
    expect(await failure(verifyWebhook({ secret: newSecret, headers: after.headers, rawBody: after.raw }))).toBe('signature_mismatch');
  });
});
