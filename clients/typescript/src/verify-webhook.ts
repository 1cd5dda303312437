import { headerValue, type HeaderSource } from './headers.js';

export interface VerifyWebhookOptions {
  /** The endpoint's secret, as the create or rotate-secret answer gave it. */
  secret: string;
  /** The delivery's headers: a Fetch `Headers`, or a plain object (Node's `req.headers`). */
  headers: HeaderSource;
  /** The body exactly as received, before any JSON parsing: the signature covers these bytes. */
  rawBody: string | Uint8Array | ArrayBuffer;
  /** How far the signing time may be from this clock, either way. Default 300 (SPEC: 5 minutes). */
  toleranceSeconds?: number;
}

export type WebhookVerificationFailure = 'missing_header' | 'timestamp_out_of_tolerance' | 'signature_mismatch';

/** A delivery that must not be trusted; `reason` says which check it failed. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

const SIGNATURE = /^v1=([0-9a-f]{64})$/i;
const utf8 = new TextEncoder();

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** `<timestamp>.` then the raw body, the bytes the `svc` signature covers. */
function signedBytes(timestamp: string, rawBody: VerifyWebhookOptions['rawBody']): Uint8Array<ArrayBuffer> {
  const prefix = utf8.encode(`${timestamp}.`);
  const body = typeof rawBody === 'string' ? utf8.encode(rawBody) : new Uint8Array(rawBody);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix);
  out.set(body, prefix.length);
  return out;
}

/**
 * Checks a delivery of the `svc` webhook format: `x-svc-signature` is `v1=` and the hex
 * HMAC-SHA256 of `<x-svc-timestamp>.<raw body>` keyed with the secret's UTF-8 bytes. During a
 * secret rotation's grace period the replaced secret signs `x-svc-signature-previous`, so a
 * receiver still holding the old secret verifies too. The comparison is Web Crypto's HMAC verify,
 * which takes the same time whatever the bytes (no early exit on the first difference).
 *
 * Resolves true, or throws WebhookVerificationError: a missing header, a timestamp more than
 * `toleranceSeconds` away (a replay), or no signature made with `secret` (a tampered body, a
 * wrong secret).
 */
export async function verifyWebhook({ secret, headers, rawBody, toleranceSeconds = 300 }: VerifyWebhookOptions): Promise<true> {
  const timestamp = headerValue(headers, 'x-svc-timestamp');
  const signature = headerValue(headers, 'x-svc-signature');
  if (timestamp === undefined || signature === undefined) {
    throw new WebhookVerificationError('missing_header', 'x-svc-timestamp and x-svc-signature are required');
  }
  const signedAt = Date.parse(timestamp);
  if (Number.isNaN(signedAt) || Math.abs(Date.now() - signedAt) > toleranceSeconds * 1000) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `x-svc-timestamp ${JSON.stringify(timestamp)} is not within ${toleranceSeconds} s of now`);
  }
  const key = await globalThis.crypto.subtle.importKey('raw', utf8.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const data = signedBytes(timestamp, rawBody);
  const previous = headerValue(headers, 'x-svc-signature-previous');
  for (const candidate of previous === undefined ? [signature] : [signature, previous]) {
    const hex = SIGNATURE.exec(candidate.trim())?.[1];
    if (hex !== undefined && (await globalThis.crypto.subtle.verify('HMAC', key, hexBytes(hex), data))) return true;
  }
  throw new WebhookVerificationError('signature_mismatch', 'no signature of this delivery was made with this secret over this body');
}
