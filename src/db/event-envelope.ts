import { isoOfMs } from '../common/time';
import type { SvcEvent } from '../events/event';
import { shortMember } from './member-snapshot';

/** The fields of an event body that its journal row's columns hold too (SPEC §6's base body). */
const ENVELOPE_FIELDS = ['id', 'type', 'gameId', 'groupId', 'occurredAt'] as const;

const EVENT_ID = /^[0-9a-f]{24}$/;
/** A uuid as PostgreSQL prints one: what the row's uuid columns give back. */
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The body the journal stores for `event`: without its envelope when the row's columns give every
 * field of it back exactly as eventBodySql (journal-sql.ts) rebuilds them: the id (the key's first
 * 12 bytes), the type, the game, the group (present exactly when the row has one) and the instant
 * (the id's millisecond, as toISOString writes it). Otherwise the whole body, which every reader
 * answers as it is. About 200 bytes less a row, and the names of those fields out of its index.
 * A member snapshot in such a body is stored short (src/db/member-snapshot.ts), when it has one.
 */
export function storedEventBody(event: SvcEvent): Record<string, unknown> {
  const { id, type, gameId, occurredAt } = event;
  const rebuilt =
    typeof id === 'string' &&
    EVENT_ID.test(id) &&
    typeof type === 'string' &&
    typeof gameId === 'string' &&
    UUID_TEXT.test(gameId) &&
    (!('groupId' in event) || (typeof event.groupId === 'string' && UUID_TEXT.test(event.groupId))) &&
    occurredAt === isoOfMs(parseInt(id.slice(0, 12), 16));
  if (!rebuilt) return event;
  const rest: Record<string, unknown> = { ...event };
  for (const field of ENVELOPE_FIELDS) delete rest[field];
  const member = rest.member;
  if (member === null || typeof member !== 'object' || Array.isArray(member)) return rest;
  // A snapshot without its group would read as a short one: such a body is stored whole.
  const snapshot = member as Record<string, unknown>;
  if (snapshot.groupId === undefined) return event;
  const short = shortMember(snapshot, event.groupId);
  if (short) rest.member = short;
  return rest;
}
