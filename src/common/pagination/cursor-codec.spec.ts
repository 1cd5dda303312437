import { ApiError } from '../errors/api-error';
import { decodeCursor, encodeCursor } from './cursor-codec';

const SCOPE = 'groups:0190a5c8-0000-7000-8000-000000000000';

const b64url = (json: string) => Buffer.from(json, 'utf8').toString('base64url');

/** The error thrown by `fn`, or a failure when it returns. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('cursor codec', () => {
  it('decodes the values it encoded for the same scope', () => {
    const cursor = encodeCursor(SCOPE, ['2024-05-01T12:00:00.000Z', 42, 'ünïcødé']);

    expect(decodeCursor(cursor, SCOPE, ['string', 'number', 'string'])).toEqual([
      '2024-05-01T12:00:00.000Z',
      42,
      'ünïcødé',
    ]);
  });

  it('encodes to a base64url string', () => {
    expect(encodeCursor(SCOPE, ['a?b>c~', 1])).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('refuses a cursor issued for another scope with bad_request', () => {
    const cursor = encodeCursor('groups:other-game', ['x']);

    const err = thrownBy(() => decodeCursor(cursor, SCOPE, ['string']));

    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_request', status: 400 });
  });

  it.each([
    ['an empty string', ''],
    ['non-base64url characters', 'abc+/='],
    ['a space', 'abc def'],
    ['garbage that is not JSON', 'Zm9vYmFy'],
    ['a cursor over the length limit', 'A'.repeat(2049)],
    ['JSON that is not an array', b64url(JSON.stringify({ scope: SCOPE }))],
    ['JSON null', b64url('null')],
    ['an empty array', b64url('[]')],
    ['too few values', b64url(JSON.stringify([SCOPE]))],
    ['too many values', b64url(JSON.stringify([SCOPE, 'x', 1, 2]))],
    ['a number where a string is expected', b64url(JSON.stringify([SCOPE, 1, 1]))],
    ['a string where a number is expected', b64url(JSON.stringify([SCOPE, 'x', '1']))],
    ['a null value', b64url(JSON.stringify([SCOPE, 'x', null]))],
    ['a scope that is not a string', b64url(JSON.stringify([1, 'x', 1]))],
  ])('refuses %s with bad_request', (_case, cursor) => {
    const err = thrownBy(() => decodeCursor(cursor, SCOPE, ['string', 'number']));

    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_request', status: 400 });
  });
});
