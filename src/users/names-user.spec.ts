import { eventOfUser, namesUser } from './names-user';

const SVC = '01a211ce-3cf4-7d2a-9b1e-6c0f4a8d2e57';

describe('namesUser', () => {
  it.each<[string, unknown]>([
    ['a member body', { type: 'member.joined', member: { userId: 'ann', status: 'active' } }],
    ['a friend event', { type: 'friend.request.sent', actorSvcUserId: 'bob', targetSvcUserId: 'ann' }],
    ['a group owner deep in a diff', { type: 'group.updated', changes: { after: { ownerUserId: 'ann' } } }],
    ['an inviter', { invitation: { targetUserId: 'bob', invitedByUserId: 'ann' } }],
    ['a list of user ids', { userIds: ['bob', 'ann'] }],
    ['the internal id anywhere', { invitation: { usedBy: SVC } }],
    ['a metadata key', { type: 'group.created', group: { metadata: { ranks: { ann: 'officer' } } } }],
    ['a key deep in a list', { member: { metadata: { seasons: [{ scores: { ann: 12 } }] } } }],
    ['the internal id as a key', { member: { metadata: { [SVC]: true } } }],
  ])('finds the user in %s', (_case, body) => {
    expect(namesUser(body, 'ann', SVC)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a group named like them', { type: 'group.created', group: { name: 'ann', ownerUserId: null } }],
    ['an event type equal to their id', { type: 'ann' }],
    ['a reason', { type: 'member.kicked', reason: 'ann', member: { userId: 'bob' } }],
    ['another user', { member: { userId: 'annabel' } }],
    ['a key that only contains their id', { metadata: { 'ann-alt': 1, annabel: 2 } }],
    ['nothing at all', null],
  ])('does not count %s', (_case, body) => {
    expect(namesUser(body, 'ann', SVC)).toBe(false);
  });

  it('with no internal id, a null in the body is not a match', () => {
    expect(namesUser({ member: { userId: null } }, 'ann', null)).toBe(false);
  });
});

describe('eventOfUser', () => {
  it("keeps the user's own blocks and leaves out blocks of them by others (SPEC §6)", () => {
    for (const type of ['friend.blocked', 'friend.unblocked']) {
      expect(eventOfUser({ type, bySvcUserId: 'ann', otherSvcUserId: 'bob' }, 'ann', SVC)).toBe(true);
      expect(eventOfUser({ type, bySvcUserId: 'bob', otherSvcUserId: 'ann' }, 'ann', SVC)).toBe(false);
    }
  });

  it('any other event is theirs when it names them', () => {
    expect(eventOfUser({ type: 'friend.removed', removedBySvcUserId: 'bob', otherSvcUserId: 'ann' }, 'ann', SVC)).toBe(true);
    expect(eventOfUser({ type: 'member.joined', member: { userId: 'bob' } }, 'ann', SVC)).toBe(false);
  });

  it('leaves out the erasure of an earlier player under the same id: that past is not theirs', () => {
    expect(eventOfUser({ type: 'user.erased', userId: 'ann', erasedAt: '2026-11-27T00:00:00.000Z' }, 'ann', SVC)).toBe(false);
  });
});
