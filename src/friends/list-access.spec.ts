import { canViewList, effectiveVisibility, type ListViewer } from './list-access';

describe('effectiveVisibility', () => {
  it('falls back to the configured default when the user never chose', () => {
    expect(effectiveVisibility(['private', 'friends-only'], 'friends-only', null)).toBe('friends-only');
  });

  it("keeps the user's choice while the game allows it", () => {
    expect(effectiveVisibility(['private', 'friends-only', 'public'], 'private', 'public')).toBe('public');
  });

  it('a choice the game no longer allows reads as the default', () => {
    expect(effectiveVisibility(['private', 'friends-only'], 'private', 'public')).toBe('private');
  });
});

describe('canViewList', () => {
  const stranger: ListViewer = { isOwner: false, blocked: false, isFriend: false };
  const friend: ListViewer = { isOwner: false, blocked: false, isFriend: true };
  const owner: ListViewer = { isOwner: true, blocked: false, isFriend: false };

  it.each<[string, ListViewer, boolean, boolean, boolean]>([
    //                 viewer    private friends-only public
    ['the owner', owner, true, true, true],
    ['a friend', friend, false, true, true],
    ['a stranger', stranger, false, false, true],
    ['a blocked friend', { ...friend, blocked: true }, false, false, false],
    ['a blocked stranger', { ...stranger, blocked: true }, false, false, false],
  ])('%s', (_case, viewer, priv, friendsOnly, pub) => {
    expect(canViewList('private', viewer)).toBe(priv);
    expect(canViewList('friends-only', viewer)).toBe(friendsOnly);
    expect(canViewList('public', viewer)).toBe(pub);
  });
});
