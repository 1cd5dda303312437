import { GuildhallError } from '../src/index.js';
import { parseRetryAfter } from '../src/errors.js';

const answer = (status: number, headers: Record<string, string> = {}, statusText = '') => new Response(null, { status, headers, statusText });

describe('GuildhallError.fromResponse', () => {
  it('the envelope gives code, message and request id; Retry-After gives retryAfter in seconds', () => {
    const e = GuildhallError.fromResponse(answer(503, { 'retry-after': '2', 'x-request-id': 'from-header' }), {
      code: 'service_unavailable',
      status: 503,
      message: 'the database cannot be reached',
      requestId: 'from-envelope',
    });
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({ name: 'GuildhallError', status: 503, code: 'service_unavailable', message: 'the database cannot be reached', requestId: 'from-envelope', retryAfter: 2 });
  });

  it('an answer that is not the envelope (a proxy page) has no code; the request id comes from the header when present', () => {
    const e = GuildhallError.fromResponse(answer(502, { 'x-request-id': 'r-1' }, 'Bad Gateway'), '<html>bad gateway</html>');
    expect(e).toMatchObject({ status: 502, code: null, message: 'HTTP 502 Bad Gateway', requestId: 'r-1', retryAfter: undefined });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('reads seconds, and an HTTP date as the seconds until it (never negative)', () => {
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('absent or unreadable: undefined', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
  });
});
