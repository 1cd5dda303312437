import { emptyUserIdParam } from './empty-user-id';

describe('emptyUserIdParam', () => {
  it("names an empty user id of a player's data route and its admin twins", () => {
    expect(emptyUserIdParam('/v1/users/:userId', { userId: '' })).toBe('userId');
    expect(emptyUserIdParam('/v1/users/:userId/export', { userId: '' })).toBe('userId');
    expect(emptyUserIdParam('/v1/admin/games/:gameId/users/:externalUserId', { gameId: 'g', externalUserId: '' })).toBe('externalUserId');
    expect(emptyUserIdParam('/v1/admin/games/:gameId/users/:externalUserId/export', { gameId: 'g', externalUserId: '' })).toBe('externalUserId');
  });

  it('leaves filled ids, other routes and unrouted requests alone', () => {
    expect(emptyUserIdParam('/v1/users/:userId', { userId: 'eve' })).toBeNull();
    expect(emptyUserIdParam('/v1/bans/:userId', { userId: '' })).toBeNull();
    expect(emptyUserIdParam('/v1/users/:userId/friends', { userId: '' })).toBeNull();
    expect(emptyUserIdParam(undefined, { userId: '' })).toBeNull();
    expect(emptyUserIdParam('/v1/users/:userId', undefined)).toBeNull();
  });
});
