import type { ServerResponse } from 'node:http';
import type { SvcEvent } from './event';
import type { FeedPosition } from './feed-position';
import type { FeedEvent } from './feed.repository';
import { OrderedStream } from './ordered-stream';
import { StreamStats, type StreamKind } from './stream-stats';

/** The SSE frame of an event (DECISIONS §8): id, event type, and the JSON body as data. */
export function eventFrame(e: SvcEvent): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
}

export interface StreamFilter {
  /** A group's stream: that group's events only. */
  groupId?: string;
  types?: ReadonlySet<string> | null;
}

/** One open stream of the game's events (the game's, a group's, an operator's), filtered as it asked. */
export class StreamSubscriber extends OrderedStream {
  constructor(
    readonly gameId: string,
    readonly filter: StreamFilter,
    res: ServerResponse,
    position: FeedPosition,
    replaying: boolean,
    kind: StreamKind = 'game',
    stats = new StreamStats(),
  ) {
    super(res, position, replaying, kind, stats);
  }

  accepts(e: SvcEvent): boolean {
    if (this.filter.groupId && e.groupId !== this.filter.groupId) return false;
    return !this.filter.types || this.filter.types.has(e.type);
  }

  /** An event from the live tail, in feed order; `frame` is shared by every subscriber. */
  offer(e: FeedEvent, frame: () => Buffer): void {
    if (this.accepts(e.body)) this.offerAt(e.position, frame);
  }

  /** A replayed event; resolves once the socket can take more (backpressure). */
  replayed(e: FeedEvent): Promise<void> {
    return this.replayedAt(e.position, eventFrame(e.body));
  }
}
