import { AUTO_DISABLE_AFTER, classifyResponse, MAX_ATTEMPTS, retryDelayMs } from './backoff';

const MIN = 60_000;
const HOUR = 60 * MIN;

/** SPEC §3 Webhook delivery, §6 Retry, §8 Other limits. */
describe('retryDelayMs (the backoff table)', () => {
  it('waits 1 m, 5 m, 30 m, 2 h, 8 h after failed attempts 1 to 5', () => {
    expect([1, 2, 3, 4, 5].map(retryDelayMs)).toEqual([1 * MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 8 * HOUR]);
  });

  it('has no wait after the 6th attempt: it is terminal', () => {
    expect(MAX_ATTEMPTS).toBe(6);
    expect(retryDelayMs(6)).toBeNull();
  });

  it('answers null outside the table (no attempt yet, or beyond six)', () => {
    expect(retryDelayMs(0)).toBeNull();
    expect(retryDelayMs(-1)).toBeNull();
    expect(retryDelayMs(7)).toBeNull();
    expect(retryDelayMs(100)).toBeNull();
  });

  it('allows exactly six attempts in total: five waits', () => {
    const waits = Array.from({ length: 10 }, (_, i) => retryDelayMs(i + 1)).filter((w) => w !== null);
    expect(waits).toHaveLength(5);
  });

  it('disables an endpoint after 25 consecutive failed attempts', () => {
    expect(AUTO_DISABLE_AFTER).toBe(25);
  });
});

describe('classifyResponse', () => {
  it.each([200, 201, 202, 204, 299])('%i is delivered', (status) => {
    expect(classifyResponse(status)).toEqual({ kind: 'delivered' });
  });

  it.each([500, 502, 503, 504, 599])('%i (5xx) is retried', (status) => {
    expect(classifyResponse(status).kind).toBe('retry');
  });

  it.each([408, 429])('%i is retried', (status) => {
    expect(classifyResponse(status).kind).toBe('retry');
  });

  it.each([400, 401, 403, 404, 405, 409, 410, 413, 422, 451, 499])('%i (other 4xx) fails at once', (status) => {
    expect(classifyResponse(status).kind).toBe('fail');
  });

  it('a redirect (301) is not a delivery: redirects are not followed', () => {
    // SPEC names only 2xx as delivered; the implementation treats 3xx as a final failure.
    expect(classifyResponse(301).kind).not.toBe('delivered');
    expect(classifyResponse(302).kind).not.toBe('delivered');
  });

  it('names the status in the reason of a retry or failure', () => {
    const r = classifyResponse(503);
    expect(r.kind === 'retry' && r.reason).toContain('503');
    const f = classifyResponse(404);
    expect(f.kind === 'fail' && f.reason).toContain('404');
  });
});
