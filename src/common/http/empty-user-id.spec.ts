import { emptyUserIdParam } from './empty-user-id';

describe('emptyUserIdParam', () => {
  it('names an empty user id parameter, whatever its prefix', () => {
    expect(emptyUserIdParam({ userId: '' })).toBe('userId');
    expect(emptyUserIdParam({ gameId: 'g', otherUserId: '' })).toBe('otherUserId');
  });

  it('leaves filled user ids, other empty parameters and no parameters alone', () => {
    expect(emptyUserIdParam({ userId: 'eve' })).toBeNull();
    expect(emptyUserIdParam({ id: '' })).toBeNull();
    expect(emptyUserIdParam({})).toBeNull();
    expect(emptyUserIdParam(undefined)).toBeNull();
  });
});
