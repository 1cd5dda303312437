/** SPEC §4 Friends rule 3: the relationship states, in the order they take priority. */
export const RELATIONSHIP_STATES = [
  'blocked_by_me',
  'blocked_by_them',
  'friends',
  'request_outgoing',
  'request_incoming',
  'none',
] as const;
export type RelationshipState = (typeof RELATIONSHIP_STATES)[number];

/** What is known between a viewer and another user; each field is the time it began, if any. */
export interface RelationshipFacts {
  blockedByMeAt?: Date | null;
  blockedByThemAt?: Date | null;
  /** respondedAt of the friendship. */
  friendsSince?: Date | null;
  outgoingRequestAt?: Date | null;
  incomingRequestAt?: Date | null;
}

/**
 * The state a viewer sees: the viewer's own block, then the other's block, then friendship, then a
 * pending request, then none; `since` is when that state began (null for none).
 */
export function relationshipState(f: RelationshipFacts): { state: RelationshipState; since: Date | null } {
  if (f.blockedByMeAt) return { state: 'blocked_by_me', since: f.blockedByMeAt };
  if (f.blockedByThemAt) return { state: 'blocked_by_them', since: f.blockedByThemAt };
  if (f.friendsSince) return { state: 'friends', since: f.friendsSince };
  if (f.outgoingRequestAt) return { state: 'request_outgoing', since: f.outgoingRequestAt };
  if (f.incomingRequestAt) return { state: 'request_incoming', since: f.incomingRequestAt };
  return { state: 'none', since: null };
}
