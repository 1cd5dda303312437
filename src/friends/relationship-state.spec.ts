import { relationshipState, type RelationshipFacts } from './relationship-state';

const t = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n));

describe('relationshipState', () => {
  it('is none with since null when nothing is known', () => {
    expect(relationshipState({})).toEqual({ state: 'none', since: null });
  });

  it.each<[string, RelationshipFacts, string, Date]>([
    ['blocked_by_me', { blockedByMeAt: t(1) }, 'blocked_by_me', t(1)],
    ['blocked_by_them', { blockedByThemAt: t(2) }, 'blocked_by_them', t(2)],
    ['friends', { friendsSince: t(3) }, 'friends', t(3)],
    ['request_outgoing', { outgoingRequestAt: t(4) }, 'request_outgoing', t(4)],
    ['request_incoming', { incomingRequestAt: t(5) }, 'request_incoming', t(5)],
  ])('reports %s with the time it began', (_case, facts, state, since) => {
    expect(relationshipState(facts)).toEqual({ state, since });
  });

  const all: RelationshipFacts = {
    blockedByMeAt: t(1),
    blockedByThemAt: t(2),
    friendsSince: t(3),
    outgoingRequestAt: t(4),
    incomingRequestAt: t(5),
  };

  it('follows the priority: own block, their block, friendship, request, none', () => {
    expect(relationshipState(all).state).toBe('blocked_by_me');
    expect(relationshipState({ ...all, blockedByMeAt: null }).state).toBe('blocked_by_them');
    expect(relationshipState({ ...all, blockedByMeAt: null, blockedByThemAt: null }).state).toBe('friends');
    expect(relationshipState({ outgoingRequestAt: t(4), incomingRequestAt: t(5) }).state).toBe('request_outgoing');
  });

  it('both blocks: the viewer sees their own', () => {
    expect(relationshipState({ blockedByMeAt: t(1), blockedByThemAt: t(2) })).toEqual({ state: 'blocked_by_me', since: t(1) });
  });
});
