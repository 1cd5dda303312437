/** Keys whose string values are external user ids: userId, targetUserId, ownerUserId, actorSvcUserId, userIds... */
const USER_KEY = /userids?$/i;

const MAX_DEPTH = 64;

/**
 * Whether an event body or an audit payload names a user: their internal id anywhere (a uuid, never
 * anything else's), their external id as the value of a user field, or either id as an object key
 * (a map keyed by player, `ranks: { "<player>": "officer" }`). The index finds every document
 * holding the external id as any string or key; one holding it only as another kind of value (a
 * group named like the player, a reason, an event type) is about someone else, and stays out of
 * the user's export.
 */
export function namesUser(body: unknown, externalId: string, internalId: string | null): boolean {
  return visit(body, '', 0);

  function visit(value: unknown, key: string, depth: number): boolean {
    if (typeof value === 'string') return value === internalId || (value === externalId && USER_KEY.test(key));
    if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return false;
    // An array's items are values of its key (userIds: [...]).
    if (Array.isArray(value)) return value.some((item) => visit(item, key, depth + 1));
    return Object.entries(value).some(([k, v]) => k === externalId || k === internalId || visit(v, k, depth + 1));
  }
}

/** Events of a block: SPEC §6, the blocked party is not notified by the service. */
const BLOCK_EVENTS: ReadonlySet<string> = new Set(['friend.blocked', 'friend.unblocked']);

/**
 * Whether an event belongs in a user's export: it names them ({@link namesUser}), and is not a
 * block of them by someone else, which the service never tells the blocked party (SPEC §6), as
 * their blocks list shows only their own; nor the erasure of an earlier player under the same id,
 * whose past this user does not have (EXTENSIONS X7).
 */
export function eventOfUser(body: unknown, externalId: string, internalId: string | null): boolean {
  const event = body as { type?: unknown; bySvcUserId?: unknown } | null;
  if (event?.type === 'user.erased') return false;
  if (event && typeof event.type === 'string' && BLOCK_EVENTS.has(event.type)) return event.bySvcUserId === externalId;
  return namesUser(body, externalId, internalId);
}
