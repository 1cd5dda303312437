import { createHmac, timingSafeEqual } from 'node:crypto';
import { signPayload, signStandard, standardSecret } from './signature';

/**
 * SPEC §6: `x-svc-signature` is `v1=` + lowercase hex HMAC-SHA256 of `<x-svc-timestamp>.<raw body>`
 * keyed with the endpoint secret; DECISIONS §13: the key is the secret's text as UTF-8 bytes.
 * The expected values are computed here independently (and two were cross-checked with
 * `openssl dgst -sha256 -hmac`), never through the code under test.
 */
const TS = '2026-01-01T00:00:00.000Z';

/** What a receiver computes: the key and the signed text both as UTF-8 bytes. */
const expected = (secret: string, ts: string, body: string | Buffer) =>
  `v1=${createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${ts}.`, 'utf8'), Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')]))
    .digest('hex')}`;

describe('signPayload', () => {
  it('matches a fixed vector for an ASCII secret and body (cross-checked with openssl)', () => {
    const body = '{"id":"0123456789abcdef01234567","type":"member.joined"}';
    const sig = signPayload('whsec_test_0123456789abcdef', TS, body);
    expect(sig).toBe('v1=3028e597171554c95ece8e62de878821be8973a259aa9b2fe7095a1db763dc2b');
    expect(sig).toBe(expected('whsec_test_0123456789abcdef', TS, body));
  });

  it('keys the HMAC with the UTF-8 bytes of a non-ASCII secret and signs a non-ASCII body as UTF-8 (fixed vector)', () => {
    const secret = 'clé-секрет-🔑-0123456789';
    const body = '{"name":"Ærø — 騎士団 🛡️"}';
    const sig = signPayload(secret, TS, body);
    expect(sig).toBe('v1=a4d04afdc2d9eb020588e441220bfee4bcb3bff5b35a9639611be7d8d412b4bf');
    expect(sig).toBe(expected(secret, TS, body));
    // Not the latin1 / UTF-16 readings of the same key.
    const latin1 = `v1=${createHmac('sha256', Buffer.from(secret, 'latin1')).update(`${TS}.${body}`).digest('hex')}`;
    const utf16 = `v1=${createHmac('sha256', Buffer.from(secret, 'utf16le')).update(`${TS}.${body}`).digest('hex')}`;
    expect(sig).not.toBe(latin1);
    expect(sig).not.toBe(utf16);
  });

  it('is `v1=` followed by exactly 64 lowercase hex characters', () => {
    for (const [secret, body] of [
      ['a'.repeat(16), '{}'],
      ['s'.repeat(256), JSON.stringify({ big: 'x'.repeat(100_000) })],
      ['ünïcødé-sécret-1234', ''],
    ]) {
      expect(signPayload(secret, TS, body)).toMatch(/^v1=[0-9a-f]{64}$/);
    }
  });

  it('signs the raw bytes: a Buffer body gives the same signature as the same text', () => {
    const body = '{"emoji":"🎮","accent":"é"}';
    expect(signPayload('0123456789abcdef', TS, Buffer.from(body, 'utf8'))).toBe(signPayload('0123456789abcdef', TS, body));
    expect(signPayload('0123456789abcdef', TS, Buffer.from(body, 'utf8'))).toBe(expected('0123456789abcdef', TS, body));
  });

  it('covers the timestamp, the separator dot, the body and the secret', () => {
    const base = signPayload('0123456789abcdef', TS, '{"a":1}');
    expect(signPayload('0123456789abcdef', '2026-01-01T00:00:00.001Z', '{"a":1}')).not.toBe(base);
    expect(signPayload('0123456789abcdef', TS, '{"a":2}')).not.toBe(base);
    expect(signPayload('0123456789abcdeF', TS, '{"a":1}')).not.toBe(base);
    // `<ts>.<body>`, not `<ts><body>` nor `<body>`.
    const noDot = `v1=${createHmac('sha256', '0123456789abcdef').update(`${TS}{"a":1}`).digest('hex')}`;
    const bodyOnly = `v1=${createHmac('sha256', '0123456789abcdef').update('{"a":1}').digest('hex')}`;
    expect(base).not.toBe(noDot);
    expect(base).not.toBe(bodyOnly);
  });

  it('verifies the way a receiver does it (constant-time compare against the raw body)', () => {
    const secret = 'receiver-check-secret';
    const raw = Buffer.from(JSON.stringify({ id: 'abc', type: 'group.updated', name: 'Ψ' }), 'utf8');
    const got = Buffer.from(signPayload(secret, TS, raw));
    const want = Buffer.from(expected(secret, TS, raw));
    expect(got.length).toBe(want.length);
    expect(timingSafeEqual(got, want)).toBe(true);
  });
});

/**
 * The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `<id>.<seconds>.<raw body>`,
 * keyed with the same UTF-8 bytes; `whsec_` + base64 of those bytes is the secret libraries take.
 */
describe('signStandard and standardSecret', () => {
  const ID = '0123456789abcdef01234567';
  const SECONDS = 1767225600;
  const expectedStandard = (secret: string, body: string) =>
    `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(`${ID}.${SECONDS}.${body}`, 'utf8')).digest('base64')}`;

  it('matches a fixed vector (cross-checked with openssl dgst -sha256 -hmac ... -binary | base64)', () => {
    const body = '{"id":"0123456789abcdef01234567","type":"member.joined"}';
    const sig = signStandard('whsec_test_0123456789abcdef', ID, SECONDS, body);
    expect(sig).toBe('v1,rXmFqWjtHV2o/CiTHMlX1Yid27UBLxj88LMnOFazCA4=');
    expect(sig).toBe(expectedStandard('whsec_test_0123456789abcdef', body));
  });

  it('keys with the UTF-8 bytes of a non-ASCII secret and signs a non-ASCII body as UTF-8', () => {
    const secret = 'clé-секрет-🔑-0123456789';
    const body = '{"name":"Ærø — 騎士団 🛡️"}';
    expect(signStandard(secret, ID, SECONDS, body)).toBe(expectedStandard(secret, body));
    expect(signStandard(secret, ID, SECONDS, Buffer.from(body, 'utf8'))).toBe(expectedStandard(secret, body));
  });

  it('covers the id, the timestamp and the body', () => {
    const base = signStandard('0123456789abcdef', ID, SECONDS, '{}');
    expect(signStandard('0123456789abcdef', 'ffffffffffffffffffffffff', SECONDS, '{}')).not.toBe(base);
    expect(signStandard('0123456789abcdef', ID, SECONDS + 1, '{}')).not.toBe(base);
    expect(signStandard('0123456789abcdef', ID, SECONDS, '{ }')).not.toBe(base);
  });

  it('standardSecret is whsec_ and the base64 of the secret\'s UTF-8 bytes', () => {
    expect(standardSecret('0123456789abcdef')).toBe('whsec_MDEyMzQ1Njc4OWFiY2RlZg==');
    const secret = 'clé-секрет-🔑-0123456789';
    const sut = standardSecret(secret);
    expect(sut.startsWith('whsec_')).toBe(true);
    expect(Buffer.from(sut.slice('whsec_'.length), 'base64').toString('utf8')).toBe(secret);
  });
});
