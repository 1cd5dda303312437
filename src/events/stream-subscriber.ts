import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { SvcEvent } from './event';
import { beyond, endedBefore, isAfter, type FeedPosition, type TxSnapshot } from './feed-position';
import type { FeedEvent } from './feed.repository';

/** A subscriber this far behind is cut off rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** Live events kept for a subscriber still replaying; past this, its replay reads them instead. */
const MAX_HELD_EVENTS = 10_000;

/** The SSE frame of an event (DECISIONS §8): id, event type, and the JSON body as data. */
export function eventFrame(e: SvcEvent): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
}

/** Who opened a stream: a game's (GET /v1/events), a group's (GET /v1/events/:groupId), or an operator's (the admin twins). */
export type StreamKind = 'game' | 'group' | 'admin';
export const STREAM_KINDS: readonly StreamKind[] = ['game', 'group', 'admin'];

/** Running totals of this instance's streams, read by the metrics at scrape time (plain numbers: a frame costs an increment). */
export class StreamStats {
  readonly framesSent: Record<StreamKind, number> = { game: 0, group: 0, admin: 0 };
  /** Streams ended by the service: `slow`, over 4 MiB behind; `rewound`, the database no longer holds what they were sent. */
  readonly cutOff = { slow: 0, rewound: 0 };
}

export interface StreamFilter {
  /** A group's stream: that group's events only. */
  groupId?: string;
  types?: ReadonlySet<string> | null;
}

/**
 * One open stream. It writes events in feed order and remembers the position of the last one, so
 * that neither the replay nor the live tail writes an event twice. While it replays, the events the
 * live tail hands it are held back and written, past the replay's end, when it goes live.
 */
export class StreamSubscriber {
  live: boolean;
  closed = false;
  /** Bumped when held events are dropped: the replay must then read past the moment of the drop. */
  generation = 0;
  /**
   * A live-only stream starts when it subscribes: events of transactions that had already
   * committed then (but still waited below the horizon) are not its to receive.
   */
  startedAfter: TxSnapshot | null = null;
  private held: { position: FeedPosition; frame: Buffer }[] | null;

  constructor(
    readonly gameId: string,
    readonly filter: StreamFilter,
    readonly res: ServerResponse,
    public position: FeedPosition,
    replaying: boolean,
    readonly kind: StreamKind = 'game',
    private readonly stats = new StreamStats(),
  ) {
    this.live = !replaying;
    this.held = replaying ? [] : null;
  }

  accepts(e: SvcEvent): boolean {
    if (this.filter.groupId && e.groupId !== this.filter.groupId) return false;
    return !this.filter.types || this.filter.types.has(e.type);
  }

  /** An event from the live tail, in feed order; `frame` is shared by every subscriber. */
  offer(e: FeedEvent, frame: () => Buffer): void {
    if (this.closed || !this.accepts(e.body)) return;
    if (!this.live) {
      const held = this.held!;
      held.push({ position: e.position, frame: frame() });
      if (held.length > MAX_HELD_EVENTS) {
        this.held = [];
        this.generation++;
      }
      return;
    }
    if (!isAfter(e.position, this.position)) return;
    this.position = e.position;
    if (this.startedAfter) {
      if (endedBefore(e.position, this.startedAfter)) return;
      // Feed order is by era, then transaction id: past the snapshot's xmax, every later event is new.
      if (beyond(e.position, this.startedAfter)) this.startedAfter = null;
    }
    this.sendEvent(frame());
  }

  /** A replayed event; resolves once the socket can take more (backpressure). */
  async replayed(e: FeedEvent): Promise<void> {
    if (this.closed || !isAfter(e.position, this.position)) return;
    this.position = e.position;
    this.stats.framesSent[this.kind]++;
    if (!this.res.write(eventFrame(e.body)) && !this.closed) {
      await Promise.race([once(this.res, 'drain'), once(this.res, 'close')]);
    }
  }

  /** The replay has reached the live tail: the held events past it follow, then live ones. */
  goLive(): void {
    for (const h of this.held ?? []) {
      if (!isAfter(h.position, this.position)) continue;
      this.position = h.position;
      this.sendEvent(h.frame);
    }
    this.held = null;
    this.live = true;
  }

  /** Writes a frame, or cuts the subscriber off when it is too far behind; says whether it wrote. */
  write(frame: string | Buffer): boolean {
    if (this.closed) return false;
    if (this.res.writableLength > MAX_BUFFERED_BYTES) {
      this.closed = true;
      this.stats.cutOff.slow++;
      this.res.destroy();
      return false;
    }
    this.res.write(frame);
    return true;
  }

  private sendEvent(frame: Buffer): void {
    if (this.write(frame)) this.stats.framesSent[this.kind]++;
  }
}
