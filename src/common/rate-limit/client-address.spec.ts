import type { IncomingHttpHeaders } from 'node:http';
import { clientAddress } from './client-address';

const SOCKET = '10.0.0.5';

const request = (headers: IncomingHttpHeaders, remoteAddress: string | undefined = SOCKET) => ({
  headers,
  socket: { remoteAddress },
});

describe('clientAddress', () => {
  describe('without a trusted proxy', () => {
    it('uses the socket address and ignores x-forwarded-for', () => {
      const req = request({ 'x-forwarded-for': '203.0.113.7, 198.51.100.2' });

      expect(clientAddress(req, false)).toBe(SOCKET);
    });

    it('answers "unknown" when the socket has no address', () => {
      expect(clientAddress({ headers: {} }, false)).toBe('unknown');
    });
  });

  describe('behind a trusted proxy', () => {
    it.each<[string, string | string[], string]>([
      ['a single hop', '203.0.113.7', '203.0.113.7'],
      ['several hops', '1.1.1.1,203.0.113.7,198.51.100.2', '198.51.100.2'],
      ['hops with spaces', ' 1.1.1.1 ,  203.0.113.7 , 198.51.100.2 ', '198.51.100.2'],
      ['a trailing empty hop', '203.0.113.7, 198.51.100.2, ', '198.51.100.2'],
      ['repeated headers', ['1.1.1.1, 203.0.113.7', '198.51.100.2'], '198.51.100.2'],
      ['an IPv6 hop', '203.0.113.7, 2001:db8::1', '2001:db8::1'],
    ])('uses the rightmost x-forwarded-for hop with %s', (_case, xff, expected) => {
      expect(clientAddress(request({ 'x-forwarded-for': xff }), true)).toBe(expected);
    });

    it.each<[string, string | string[] | undefined]>([
      ['absent', undefined],
      ['empty', ''],
      ['only separators', ' , ,'],
      ['an empty list', []],
    ])('falls back to the socket address when the header is %s', (_case, xff) => {
      expect(clientAddress(request({ 'x-forwarded-for': xff }), true)).toBe(SOCKET);
    });
  });
});
