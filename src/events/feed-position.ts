import { ApiError } from '../common/errors/api-error';
import { isEventType, type EventType } from './event-types';

/**
 * Where an event sits in the feed: the feed era it was written in (a new one starts when the
 * database is restored into another cluster, see FeedEra), the id of the transaction that wrote it
 * (xid8, as Postgres prints it) and its sequence number inside the outbox. The feed is ordered by
 * (era, xid, seq).
 */
export interface FeedPosition {
  era: number;
  xid: bigint;
  seq: bigint;
}

/** Before every event: a reader that starts here reads from the oldest retained one. */
export const FEED_START: FeedPosition = { era: 0, xid: 0n, seq: 0n };

export const positionOf = (row: { era: number; xid: string; seq: string }): FeedPosition => ({ era: row.era, xid: BigInt(row.xid), seq: BigInt(row.seq) });

export const isAfter = (a: FeedPosition, b: FeedPosition): boolean =>
  a.era !== b.era ? a.era > b.era : a.xid > b.xid || (a.xid === b.xid && a.seq > b.seq);

export const comparePositions = (a: FeedPosition, b: FeedPosition): number => (isAfter(a, b) ? 1 : isAfter(b, a) ? -1 : 0);

/**
 * A Postgres snapshot (`pg_current_snapshot()`, as text `xmin:xmax:xip,...`) and the feed era it
 * was taken in: which transactions had committed when it was taken. A live-only stream skips the
 * events it already saw committed.
 */
export interface TxSnapshot {
  era: number;
  xmin: bigint;
  xmax: bigint;
  inProgress: ReadonlySet<bigint>;
}

export function parseSnapshot(text: string, era: number): TxSnapshot {
  const [xmin, xmax, xip] = text.split(':');
  return { era, xmin: BigInt(xmin), xmax: BigInt(xmax), inProgress: new Set(xip ? xip.split(',').map((x) => BigInt(x)) : []) };
}

/**
 * Whether the transaction that wrote at `p` had ended (committed, for one whose rows exist) when
 * the snapshot was taken. An earlier era's transactions all ended in the cluster it was restored from.
 */
export const endedBefore = (p: FeedPosition, s: TxSnapshot): boolean =>
  p.era < s.era || (p.era === s.era && (p.xid < s.xmin || (p.xid < s.xmax && !s.inProgress.has(p.xid))));

/** Whether every event at or after `p` is newer than the snapshot: past its xmax, in its era or a later one. */
export const beyond = (p: FeedPosition, s: TxSnapshot): boolean => p.era > s.era || (p.era === s.era && p.xid >= s.xmax);

const EVENT_ID = /^[0-9a-f]{24}$/;

/** An `after` cursor (or a `Last-Event-ID`) must look like an event id; whether it still names one is checked later. */
export function parseEventId(raw: unknown, field: string): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const text = Array.isArray(raw) ? String(raw[raw.length - 1]) : String(raw);
  if (!EVENT_ID.test(text)) throw ApiError.badRequest(`${field} must be an event id (24 lowercase hex characters)`);
  return text;
}

/** `types`: a comma list of published event types; one unknown type refuses the request. */
export function parseEventTypes(raw: unknown): EventType[] | null {
  if (raw === undefined || raw === null) return null;
  const text = Array.isArray(raw) ? raw.join(',') : String(raw);
  const types = text.split(',').map((t) => t.trim());
  if (types.some((t) => t === '')) throw ApiError.badRequest('types must be a comma-separated list of event types');
  const unknown = types.find((t) => !isEventType(t));
  if (unknown !== undefined) throw ApiError.badRequest(`types: unknown event type ${JSON.stringify(unknown.slice(0, 60))}`);
  return [...new Set(types)] as EventType[];
}
