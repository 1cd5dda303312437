/**
 * The published event types (DECISIONS §15, with EXTENSIONS X3's two). Group-scoped events go to the group's live stream
 * and to webhooks; user-scoped ones to webhooks only (SPEC §6 Channels).
 */
export const GROUP_EVENT_TYPES = [
  'group.created',
  'group.updated',
  'group.deleted',
  'group.restored',
  'member.joined',
  'member.left',
  'member.kicked',
  'member.banned',
  'member.unbanned',
  'member.updated',
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
] as const;

export const EVENT_TYPES = [...GROUP_EVENT_TYPES, ...USER_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);
export const isEventType = (v: unknown): v is EventType => typeof v === 'string' && KNOWN.has(v);
