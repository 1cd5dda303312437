import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { beyond, endedBefore, isAfter, type FeedPosition, type TxSnapshot } from './feed-position';
import { StreamStats, type StreamKind } from './stream-stats';

/** A subscriber this far behind is cut off rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** Live frames kept for a subscriber still replaying; past this, its replay reads them instead. */
const MAX_HELD_FRAMES = 10_000;

/** A frame held while the subscriber replays: one of the live tail at its position, or (null) one outside the feed order. */
interface HeldFrame {
  position: FeedPosition | null;
  frame: Buffer;
}

/**
 * One open stream of frames in feed order (era, xid, seq). It remembers the position of the last
 * one it wrote, so that neither the replay nor the live tail writes a frame twice. While it
 * replays, the frames the live tail hands it are held back and written, past the replay's end,
 * when it goes live. Frames outside the feed order (a notification stream's read marks) are
 * written as they come once live, and while replaying after the frames the replay and the tail
 * had by then.
 */
export class OrderedStream {
  live: boolean;
  closed = false;
  /** Bumped when held frames are dropped: the replay must then read past the moment of the drop. */
  generation = 0;
  /**
   * A live-only stream starts when it subscribes: frames of transactions that had already
   * committed then (but still waited below the horizon) are not its to receive.
   */
  startedAfter: TxSnapshot | null = null;
  private held: HeldFrame[] | null;

  constructor(
    readonly res: ServerResponse,
    public position: FeedPosition,
    replaying: boolean,
    readonly kind: StreamKind,
    private readonly stats: StreamStats = new StreamStats(),
  ) {
    this.live = !replaying;
    this.held = replaying ? [] : null;
  }

  /** A frame of the live tail at `position`, in feed order; `frame` is shared by every subscriber. */
  protected offerAt(position: FeedPosition, frame: () => Buffer): void {
    if (this.closed) return;
    if (!this.live) {
      const held = this.held!;
      held.push({ position, frame: frame() });
      if (held.length > MAX_HELD_FRAMES) {
        // The replay reads the positioned frames again; those outside the order it cannot, so they stay.
        this.held = held.filter((h) => h.position === null);
        this.generation++;
      }
      return;
    }
    if (!isAfter(position, this.position)) return;
    this.position = position;
    if (this.startedAfter) {
      if (endedBefore(position, this.startedAfter)) return;
      // Feed order is by era, then transaction id: past the snapshot's xmax, every later frame is new.
      if (beyond(position, this.startedAfter)) this.startedAfter = null;
    }
    this.sendFrame(frame());
  }

  /** A frame outside the feed order: written now when live, else held until the replay has reached the tail. */
  offerUnordered(frame: Buffer): void {
    if (this.closed) return;
    if (this.live) this.sendFrame(frame);
    else this.held!.push({ position: null, frame });
  }

  /** A replayed frame at `position`; resolves once the socket can take more (backpressure). */
  protected async replayedAt(position: FeedPosition, frame: string): Promise<void> {
    if (this.closed || !isAfter(position, this.position)) return;
    this.position = position;
    this.stats.framesSent[this.kind]++;
    if (!this.res.write(frame) && !this.closed) {
      // The wait that loses the race is called off: left waiting, each of a long replay's waits
      // would keep a close and an error listener on the socket until the stream ends.
      const waits = new AbortController();
      const { signal } = waits;
      await Promise.race([once(this.res, 'drain', { signal }), once(this.res, 'close', { signal })]).finally(() => waits.abort());
    }
  }

  /** The replay has reached the live tail: the held frames past it follow, then live ones. */
  goLive(): void {
    for (const h of this.held ?? []) {
      if (h.position !== null) {
        if (!isAfter(h.position, this.position)) continue;
        this.position = h.position;
      }
      this.sendFrame(h.frame);
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

  private sendFrame(frame: Buffer): void {
    if (this.write(frame)) this.stats.framesSent[this.kind]++;
  }
}
