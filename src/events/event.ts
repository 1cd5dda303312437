/**
 * The base body of every published event (SPEC §6); type-specific fields sit beside these at the
 * top level (DECISIONS §9).
 */
export interface SvcEvent {
  id: string;
  type: string;
  gameId: string;
  /** Present on group-scoped events only. */
  groupId?: string;
  occurredAt: string;
  [field: string]: unknown;
}

import type { EventType } from './event-types';

/** What a mutation stages: the type, its scope and its type-specific fields. */
export interface EventInput {
  type: EventType;
  gameId: string;
  groupId?: string | null;
  data?: Record<string, unknown>;
}
