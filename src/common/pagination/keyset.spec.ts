import { ApiError } from '../errors/api-error';
import { encodeCursor } from './cursor-codec';
import { decodeKeyset, encodeKeyset } from './keyset';

const SCOPE = 'webhooks:0190a5c8-0000-7000-8000-000000000000';
const ID = '0190a5c8-0000-7000-8000-0000000000aa';

describe('keyset cursors', () => {
  it('resume after the row they were made from', () => {
    const cursor = encodeKeyset(SCOPE, new Date('2020-02-29T10:11:12.345Z'), ID);

    expect(decodeKeyset(cursor, SCOPE)).toEqual({ at: '2020-02-29T10:11:12.345Z', id: ID });
  });

  it('are absent when no cursor is given', () => {
    expect(decodeKeyset(undefined, SCOPE)).toBeUndefined();
  });

  it.each<[string, unknown[]]>([
    ['"0"', ['0', ID]],
    ['"2020-02-30"', ['2020-02-30', ID]],
    ['"+275760-09-13T00:00:00.000Z"', ['+275760-09-13T00:00:00.000Z', ID]],
    ['an id that is no uuid', ['2020-02-29T00:00:00.000Z', 'x']],
    ['the values swapped', [ID, '2020-02-29T00:00:00.000Z']],
  ])('refuses a forged cursor with %s with 400 naming the cursor', (_case, values) => {
    let err: unknown;
    try {
      decodeKeyset(encodeCursor(SCOPE, values as string[]), SCOPE);
    } catch (e) {
      err = e;
    }

    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_request', status: 400, message: 'cursor is not a valid cursor for this list' });
  });
});
