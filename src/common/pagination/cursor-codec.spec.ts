import { ApiError } from '../errors/api-error';
import { createHash } from 'node:crypto';
import { CURSOR_MAX_LENGTH, decodeCursor, encodeCursor, scopeDigest } from './cursor-codec';

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

    expect(decodeCursor(cursor, SCOPE, 3)).toEqual(['2024-05-01T12:00:00.000Z', 42, 'ünïcødé']);
  });

  it('encodes to a base64url string', () => {
    expect(encodeCursor(SCOPE, ['a?b>c~', 1])).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('hands the values over unchecked: what each may be is the shape’s to say', () => {
    expect(decodeCursor(b64url(JSON.stringify([SCOPE, null, { a: 1 }])), SCOPE, 2)).toEqual([null, { a: 1 }]);
  });

  it('refuses a cursor issued for another scope with bad_request naming the cursor', () => {
    const cursor = encodeCursor('groups:other-game', ['x']);

    const err = thrownBy(() => decodeCursor(cursor, SCOPE, 1));

    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_request', status: 400, message: 'cursor is not a valid cursor for this list' });
  });

  it.each<[string, unknown]>([
    ['an empty string', ''],
    ['non-base64url characters', 'abc+/='],
    ['a space', 'abc def'],
    ['garbage that is not JSON', 'Zm9vYmFy'],
    ['a cursor over the length limit', 'A'.repeat(CURSOR_MAX_LENGTH + 1)],
    ['a huge input', 'A'.repeat(10_000_000)],
    ['JSON that is not an array', b64url(JSON.stringify({ scope: SCOPE }))],
    ['JSON null', b64url('null')],
    ['a JSON string', b64url(JSON.stringify(SCOPE))],
    ['an empty array', b64url('[]')],
    ['too few values', b64url(JSON.stringify([SCOPE, 'x']))],
    ['too many values', b64url(JSON.stringify([SCOPE, 'x', 1, 2]))],
    ['the scope nested in an array', b64url(JSON.stringify([[SCOPE], 'x', 1]))],
    ['a scope that is not a string', b64url(JSON.stringify([1, 'x', 1]))],
    ['a scope with a prefix of the right one', b64url(JSON.stringify([`${SCOPE}x`, 'x', 1]))],
    ['an array of cursors (a repeated query parameter)', [encodeCursor(SCOPE, ['x', 1])]],
    ['a number', 42],
  ])('refuses %s with bad_request', (_case, cursor) => {
    const err = thrownBy(() => decodeCursor(cursor, SCOPE, 2));

    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_request', status: 400 });
    expect((err as ApiError).message).toMatch(/^cursor /);
  });
});

describe('scopeDigest', () => {
  it('keeps a cursor scoped by an id of any length far below the cap', () => {
    const id = 'x'.repeat(2 * 1024 * 1024);
    const scope = `friends:0190a5c8-0000-7000-8000-000000000000:${scopeDigest(id)}:`;

    const cursor = encodeCursor(scope, ['2024-05-01T12:00:00.000Z', '0190a5c8-0000-7000-8000-000000000001']);

    expect(cursor.length).toBeLessThan(300);
    expect(decodeCursor(cursor, scope, 2)).toHaveLength(2);
  });

  it('tells ids apart, by every character and by case', () => {
    const ids = ['alice', 'Alice', 'alice ', 'ålice', `${'x'.repeat(5000)}a`, `${'x'.repeat(5000)}b`];

    expect(new Set(ids.map(scopeDigest)).size).toBe(ids.length);
    expect(scopeDigest('alice')).toBe(scopeDigest('alice'));
  });

  it('is the SHA-256 in base64url the invitation inbox has always put in its scope, so its cursors stay valid', () => {
    expect(scopeDigest('ünïcødé')).toBe(createHash('sha256').update('ünïcødé', 'utf8').digest('base64url'));
    expect(scopeDigest('carol')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
