import { journalEvents } from '../../helpers/journal';
import type { HaCluster } from './ha-cluster';
import { eventually, followFeed, followStream, type Receipt } from './load';

export const WEBHOOK_TYPES = ['member.joined', 'friend.request.sent'];

/** What the consumers of one fault saw, against what the database committed meanwhile. */
export interface EventFigures {
  committed: number;
  feedMissing: number;
  feedDuplicates: number;
  /** The feed's ids equal the committed ones, in the feed's order. */
  feedInOrder: boolean;
  streamMissing: number;
  streamDuplicates: number;
  /** Events the stream sent that the database does not hold (a commit the new primary never had). */
  streamUnknown: number;
  streamReconnects: number;
  /** Why the stream's handshakes were refused, by status and code (or connection error), with their counts. */
  streamRefusals: Record<string, number>;
  webhookExpected: number;
  webhookMissing: number;
  /** Deliveries repeated under an event id already delivered (allowed: at-least-once). */
  webhookRepeated: number;
  /** Deliveries of an event the database does not hold (never allowed). */
  webhookUnknown: number;
}

const duplicates = (ids: readonly string[]) => ids.length - new Set(ids).size;

/**
 * A feed reader and a game stream on `via`, from the last event committed so far, plus the webhook
 * receipts from now on. `finish()` waits (bounded) for them to catch up, stops them, and compares
 * with the events the current primary's journal holds.
 */
export async function watchEvents(
  c: HaCluster,
  game: { id: string; key: string },
  via: string,
  receipts: readonly Receipt[],
): Promise<{ cutStreams(): void; finish(): Promise<EventFigures> }> {
  const [last] = await c.sql<{ id: string }>(`SELECT id FROM ${journalEvents()} WHERE game_id = $1 ORDER BY era DESC, xid DESC, seq DESC LIMIT 1`, [game.id]);
  const head = last?.id ?? null;
  const feed = followFeed(via, game.key, head);
  const stream = followStream(via, '/v1/events', game.key, head);
  const firstReceipt = receipts.length;
  return {
    cutStreams: () => stream.cut(),
    finish: async () => {
      const all = await c.sql<{ id: string; type: string }>(`SELECT id, type FROM ${journalEvents()} WHERE game_id = $1 ORDER BY era, xid, seq`, [game.id]);
      const committed = all.slice(head ? all.findIndex((e) => e.id === head) + 1 : 0);
      await eventually(() => feed.ids.length >= committed.length && stream.ids.length >= committed.length, 60_000);
      await feed.stop();
      stream.stop();
      const expected = committed.filter((e) => WEBHOOK_TYPES.includes(e.type)).map((e) => e.id);
      const delivered = () => new Set(receipts.map((r) => r.eventId));
      await eventually(() => expected.every((id) => delivered().has(id)), 90_000);
      const known = new Set(all.map((e) => e.id));
      const mine = receipts.slice(firstReceipt);
      const expectedSet = new Set(expected);
      const ofExpected = receipts.filter((r) => expectedSet.has(r.eventId)).map((r) => r.eventId);
      const ids = committed.map((e) => e.id);
      return {
        committed: committed.length,
        feedMissing: ids.filter((id) => !feed.ids.includes(id)).length,
        feedDuplicates: duplicates(feed.ids),
        feedInOrder: JSON.stringify(feed.ids) === JSON.stringify(ids),
        streamMissing: ids.filter((id) => !stream.ids.includes(id)).length,
        streamDuplicates: duplicates(stream.ids),
        streamUnknown: stream.ids.filter((id) => !known.has(id)).length,
        streamReconnects: stream.reconnects,
        streamRefusals: stream.refusals,
        webhookExpected: expected.length,
        webhookMissing: expected.filter((id) => !delivered().has(id)).length,
        webhookRepeated: duplicates(ofExpected),
        webhookUnknown: mine.filter((r) => !known.has(r.eventId)).length,
      };
    },
  };
}

/** The figures every fault must show: nothing missing, nothing repeated but webhook deliveries under one id. */
export const EVENTS_OK = {
  feedMissing: 0,
  feedDuplicates: 0,
  feedInOrder: true,
  streamMissing: 0,
  streamDuplicates: 0,
  streamUnknown: 0,
  webhookMissing: 0,
  webhookUnknown: 0,
};

export const describeEvents = (e: EventFigures) =>
  `events ${e.committed} committed: feed ${e.feedMissing} missing / ${e.feedDuplicates} repeated, stream ${e.streamMissing} missing / ` +
  `${e.streamDuplicates} repeated / ${e.streamUnknown} unknown (${e.streamReconnects} reconnects${Object.keys(e.streamRefusals).length ? `, refused: ${JSON.stringify(e.streamRefusals)}` : ''}); webhooks ${e.webhookExpected} expected, ${e.webhookMissing} missing, ` +
  `${e.webhookRepeated} repeated under the same id, ${e.webhookUnknown} unknown`;
