import { codeForStatus, ERROR_STATUS, isErrorCode, type ErrorCode } from './error-codes';

describe('codeForStatus', () => {
  it.each<[number, ErrorCode]>([
    [400, 'bad_request'],
    [401, 'invalid_api_key'],
    [403, 'permission_denied'],
    [404, 'not_found'],
    [405, 'method_not_allowed'],
    [413, 'payload_too_large'],
    [415, 'unsupported_media_type'],
    [429, 'rate_limit_exceeded'],
    [503, 'service_unavailable'],
    [408, 'bad_request'],
    [422, 'bad_request'],
    [499, 'bad_request'],
    [500, 'internal'],
    [502, 'internal'],
    [200, 'internal'],
    [302, 'internal'],
  ])('maps status %i to %s', (status, code) => {
    expect(codeForStatus(status)).toBe(code);
  });

  it.each([400, 401, 403, 404, 405, 413, 415, 429, 503])(
    'maps the explicitly handled status %i to a code answering with that status',
    (status) => {
      expect(ERROR_STATUS[codeForStatus(status)]).toBe(status);
    },
  );
});

describe('isErrorCode', () => {
  it.each(['bad_request', 'not_found', 'internal'])('accepts the code %s', (code) => {
    expect(isErrorCode(code)).toBe(true);
  });

  it.each([['nope'], ['toString'], ['__proto__'], [400], [undefined], [null]])('refuses %p', (value) => {
    expect(isErrorCode(value)).toBe(false);
  });
});
