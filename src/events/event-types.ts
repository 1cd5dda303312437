/**
 * The published event types (DECISIONS §15, with EXTENSIONS X3's two, X6's owner change, X7's erasure and X10's timeouts and reports). Every one is in the game's feed and stream and
 * goes to webhooks (EXTENSIONS X1); group-scoped ones also go to their group's stream. User-scoped ones carry no
 * groupId, so no group stream has them (SPEC §6 Channels kept them off the group stream; X1 added the game's).
 */
export const GROUP_EVENT_TYPES = [
  'group.created',
  'group.updated',
  'group.deleted',
  'group.restored',
  'group.owner_changed',
  'member.joined',
  'member.left',
  'member.kicked',
  'member.banned',
  'member.unbanned',
  'member.updated',
  'member.timed_out',
  'member.timeout_lifted',
  'role.changed',
  'invitation.created',
  'invitation.revoked',
  'join_request.created',
  'join_request.declined',
] as const;

export const USER_EVENT_TYPES = [
  'game.user.banned',
  'game.user.unbanned',
  'friend.request.sent',
  'friend.request.accepted',
  'friend.request.declined',
  'friend.request.cancelled',
  'friend.removed',
  'friend.blocked',
  'friend.unblocked',
  'user.erased',
  // Game-scoped like user.erased: a report about a group is the game's moderation, not the group's news.
  'report.created',
  'report.resolved',
] as const;

export const EVENT_TYPES = [...GROUP_EVENT_TYPES, ...USER_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);
export const isEventType = (v: unknown): v is EventType => typeof v === 'string' && KNOWN.has(v);
