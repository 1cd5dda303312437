import { headerValue } from '../src/headers.js';

describe('headerValue', () => {
  it('finds a header of a plain object whatever the case of its name', () => {
    const headers = { 'X-Svc-Timestamp': '2026-01-01T00:00:00.000Z', 'content-type': 'application/json' };
    expect(headerValue(headers, 'x-svc-timestamp')).toBe('2026-01-01T00:00:00.000Z');
    expect(headerValue(headers, 'Content-Type')).toBe('application/json');
    expect(headerValue(headers, 'x-svc-signature')).toBeUndefined();
  });

  it('takes the first of repeated values (Node gives arrays) and skips undefined entries', () => {
    expect(headerValue({ 'x-a': ['one', 'two'] }, 'x-a')).toBe('one');
    expect(headerValue({ 'X-A': undefined, 'x-a': 'set' }, 'x-a')).toBe('set');
  });

  it('reads a Fetch Headers instance', () => {
    const headers = new Headers({ 'X-Svc-Signature': 'v1=ab' });
    expect(headerValue(headers, 'x-svc-signature')).toBe('v1=ab');
    expect(headerValue(headers, 'x-svc-timestamp')).toBeUndefined();
  });
});
