import { ApiError } from '../common/errors/api-error';

/**
 * The kinds of notification (EXTENSIONS X9), each written to the player it concerns, in the
 * transaction of the change that causes it:
 * - `invitation.received`: an invitation targeted at the player is created (bulk invites included);
 * - `join_request.approved` / `join_request.declined`: the player's join request is decided;
 * - `member.kicked` / `member.banned`: the player is kicked from, or banned in, a group;
 * - `member.roles_changed`: a role is assigned to or removed from the player;
 * - `group.ownership_received`: the player is made a group's owner;
 * - `friend.request.received`: someone sends the player a friend request;
 * - `friend.request.accepted`: the player's friend request is accepted.
 * The table's CHECK (migration Notifications1766400000000) lists the same.
 */
export const NOTIFICATION_KINDS = [
  'invitation.received',
  'join_request.approved',
  'join_request.declined',
  'member.kicked',
  'member.banned',
  'member.roles_changed',
  'group.ownership_received',
  'friend.request.received',
  'friend.request.accepted',
] as const;

export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const isNotificationKind = (value: string): value is NotificationKind => (NOTIFICATION_KINDS as readonly string[]).includes(value);

/**
 * The `kinds` filter of the list: a comma-separated list of kinds (spaces around a name allowed,
 * repeats kept once). 400 naming `kinds` for an empty list or a name that is no kind.
 */
export function parseKinds(raw: string): NotificationKind[] {
  const names = raw.split(',').map((k) => k.trim());
  const unknown = names.find((k) => !isNotificationKind(k));
  if (unknown !== undefined) {
    const what = unknown === '' ? 'an empty name' : `"${unknown.slice(0, 64)}"`;
    throw ApiError.badRequest(`kinds must be a comma-separated list of notification kinds (${NOTIFICATION_KINDS.join(', ')}): ${what} is none`);
  }
  return [...new Set(names as NotificationKind[])];
}
