import { createHmac } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationFailure } from '../src/index.js';
import { rejection } from './support';

/** Signatures made by hand as SPEC §6 describes them, independently of the server's code. */
const SECRET = 'whsec-test-0123456789abcdef';
const OLD_SECRET = 'previous-secret-0123456789';
const BODY = '{"id":"0190aa00bb11cc22dd33ee44","type":"member.joined","groupId":"g","name":"Drachenzähne"}';
const sign = (secret: string, timestamp: string, body: string) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

function delivery(opts: { secret?: string; at?: Date; body?: string; previous?: string } = {}) {
  const timestamp = (opts.at ?? new Date()).toISOString();
  const headers: Record<string, string> = {
    'x-svc-event': 'member.joined',
    'x-svc-timestamp': timestamp,
    'x-svc-signature': sign(opts.secret ?? SECRET, timestamp, opts.body ?? BODY),
  };
  if (opts.previous) headers['x-svc-signature-previous'] = sign(opts.previous, timestamp, opts.body ?? BODY);
  return headers;
}

async function failure(promise: Promise<unknown>): Promise<WebhookVerificationFailure> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(WebhookVerificationError);
  return (err as WebhookVerificationError).reason;
}

describe('verifyWebhook', () => {
  it('resolves true for a delivery signed with the secret: body as a string, bytes or ArrayBuffer; headers as an object or Headers', async () => {
    const headers = delivery();
    const bytes = Buffer.from(BODY, 'utf8');
    await expect(verifyWebhook({ secret: SECRET, headers, rawBody: BODY })).resolves.toBe(true);
    await expect(verifyWebhook({ secret: SECRET, headers: new Headers(headers), rawBody: bytes })).resolves.toBe(true);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    await expect(verifyWebhook({ secret: SECRET, headers, rawBody: buffer })).resolves.toBe(true);
  });

  it('header names in any case, as some frameworks pass them', async () => {
    const upper = Object.fromEntries(Object.entries(delivery()).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(verifyWebhook({ secret: SECRET, headers: upper, rawBody: BODY })).resolves.toBe(true);
  });

  it('a body changed by one character, or another secret: signature_mismatch', async () => {
    const headers = delivery();
    expect(await failure(verifyWebhook({ secret: SECRET, headers, rawBody: BODY.replace('joined', 'joinee') }))).toBe('signature_mismatch');
    expect(await failure(verifyWebhook({ secret: 'another-secret-entirely', headers, rawBody: BODY }))).toBe('signature_mismatch');
  });

  it('a signature that is not v1= and 64 hex characters never matches', async () => {
    const headers = delivery();
    const hex = headers['x-svc-signature'].slice(3);
    for (const bad of [hex, `v2=${hex}`, `v1=${hex.slice(2)}`, `v1=${hex}00`, 'v1=']) {
      expect(await failure(verifyWebhook({ secret: SECRET, headers: { ...headers, 'x-svc-signature': bad }, rawBody: BODY }))).toBe('signature_mismatch');
    }
  });

  it('during a rotation: a receiver holding only the old secret verifies through x-svc-signature-previous', async () => {
    const headers = delivery({ previous: OLD_SECRET });
    await expect(verifyWebhook({ secret: SECRET, headers, rawBody: BODY })).resolves.toBe(true);
    await expect(verifyWebhook({ secret: OLD_SECRET, headers, rawBody: BODY })).resolves.toBe(true);
    expect(await failure(verifyWebhook({ secret: OLD_SECRET, headers: delivery(), rawBody: BODY }))).toBe('signature_mismatch');
  });

  it('a timestamp further than the tolerance either way is refused, even well signed; within it, accepted', async () => {
    const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
    expect(await failure(verifyWebhook({ secret: SECRET, headers: delivery({ at: minutesAgo(6) }), rawBody: BODY }))).toBe('timestamp_out_of_tolerance');
    expect(await failure(verifyWebhook({ secret: SECRET, headers: delivery({ at: minutesAgo(-6) }), rawBody: BODY }))).toBe('timestamp_out_of_tolerance');
    await expect(verifyWebhook({ secret: SECRET, headers: delivery({ at: minutesAgo(4) }), rawBody: BODY })).resolves.toBe(true);
    await expect(verifyWebhook({ secret: SECRET, headers: delivery({ at: minutesAgo(6) }), rawBody: BODY, toleranceSeconds: 600 })).resolves.toBe(true);
    const unreadable = { ...delivery(), 'x-svc-timestamp': 'yesterday' };
    expect(await failure(verifyWebhook({ secret: SECRET, headers: unreadable, rawBody: BODY }))).toBe('timestamp_out_of_tolerance');
  });

  it('without the timestamp or the signature: missing_header', async () => {
    const { 'x-svc-timestamp': _t, ...noTimestamp } = delivery();
    const { 'x-svc-signature': _s, ...noSignature } = delivery({ previous: OLD_SECRET });
    expect(await failure(verifyWebhook({ secret: SECRET, headers: noTimestamp, rawBody: BODY }))).toBe('missing_header');
    expect(await failure(verifyWebhook({ secret: OLD_SECRET, headers: noSignature, rawBody: BODY }))).toBe('missing_header');
  });
});
