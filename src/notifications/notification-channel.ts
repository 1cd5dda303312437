/**
 * The cross-instance signal of a player's notifications (EXTENSIONS X9): a Postgres NOTIFY on this
 * channel, sent with the commit of the change (Tx.notify), heard by every instance, the sender
 * included. The streams read the notifications themselves, in feed order; a signal only says whose
 * stream to wake, or which read marks to pass on (they are not rows a stream could read again).
 * Every signal also says whose unread counts changed: each instance drops them from its cache
 * (NotificationCountsCache), so every change to a player's unread ones must send one.
 */
export const NOTIFICATIONS_CHANNEL = 'svc_notifications';

/** At least one notification of player `u` (internal id) of game `g` was written. */
export interface NewSignal {
  t: 'new';
  g: string;
  u: string;
}

/** Player `u` marked these notifications read (only those that were unread). */
export interface ReadIdsSignal {
  t: 'read';
  g: string;
  u: string;
  ids: string[];
}

/** Player `u` marked everything read that was created before `before` (ISO time of the marking). */
export interface ReadAllSignal {
  t: 'read';
  g: string;
  u: string;
  all: true;
  before: string;
}

/**
 * Unread notifications of player `u` were removed by something other than the player: the sweep
 * (retention, the per-player cap) or their erasure. Only the unread counts care: a stream has
 * nothing to send for it.
 */
export interface RemovedSignal {
  t: 'removed';
  g: string;
  u: string;
}

export type ReadSignal = ReadIdsSignal | ReadAllSignal;
export type NotificationSignal = NewSignal | ReadSignal | RemovedSignal;

/**
 * The payload of a signal, as JSON. A NOTIFY payload must stay under 8,000 bytes: a read of at
 * most 100 ids (the route's cap) of 36 characters is about 4,000.
 */
export function formatSignal(signal: NotificationSignal): string {
  switch (signal.t) {
    case 'new':
    case 'removed':
      return JSON.stringify({ t: signal.t, g: signal.g, u: signal.u });
    case 'read':
      return 'all' in signal
        ? JSON.stringify({ t: 'read', g: signal.g, u: signal.u, all: true, before: signal.before })
        : JSON.stringify({ t: 'read', g: signal.g, u: signal.u, ids: signal.ids });
  }
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * The signal a payload carries, or null for anything else (a payload of another build, or sent by
 * hand): a listener skips it rather than fail. Keys are read by name, so the key order of a payload
 * written by SQL (jsonb sorts them) does not matter.
 */
export function parseSignal(payload: string): NotificationSignal | null {
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const o = raw as Record<string, unknown>;
  if (!isString(o.g) || !isString(o.u)) return null;
  if (o.t === 'new' || o.t === 'removed') return { t: o.t, g: o.g, u: o.u };
  if (o.t !== 'read') return null;
  if (o.all === true) return isString(o.before) && !Number.isNaN(Date.parse(o.before)) ? { t: 'read', g: o.g, u: o.u, all: true, before: o.before } : null;
  if (Array.isArray(o.ids) && o.ids.every(isString)) return { t: 'read', g: o.g, u: o.u, ids: o.ids as string[] };
  return null;
}
