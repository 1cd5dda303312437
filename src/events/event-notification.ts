import type { SvcEvent } from './event';

/** Group events are announced on this channel, with the commit, to every instance's stream. */
export const EVENTS_CHANNEL = 'svc_events';

/** NOTIFY payloads must stay under 8000 bytes; a larger event travels by reference to its outbox row. */
const MAX_INLINE_BYTES = 7_000;

export type EventNotification = { origin: string; event: SvcEvent } | { origin: string; ref: string };

/** `origin` names the instance: it ignores its own announcements, having published them at commit. */
export function encodeEventNotification(event: SvcEvent, origin: string): string {
  const inline = JSON.stringify({ origin, event });
  return Buffer.byteLength(inline, 'utf8') <= MAX_INLINE_BYTES ? inline : JSON.stringify({ origin, ref: event.id });
}

export function decodeEventNotification(payload: string): EventNotification | null {
  try {
    const v = JSON.parse(payload) as Partial<{ origin: string; event: SvcEvent; ref: string }>;
    if (typeof v.origin !== 'string') return null;
    if (v.event && typeof v.event === 'object') return { origin: v.origin, event: v.event };
    if (typeof v.ref === 'string') return { origin: v.origin, ref: v.ref };
    return null;
  } catch {
    return null;
  }
}
