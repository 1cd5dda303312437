import type { NotificationFrame } from './follow-notifications.js';
import type { Notification } from './notifications.js';

/** What the tally knows of a notification it has met in a frame. */
interface Seen {
  unread: boolean;
  /** Epoch ms; -Infinity for one known only by a read mark. */
  createdAt: number;
  /** Met before the last counts answered: that answer counted it. */
  inCount: boolean;
}

/** The newest notification the service listed just before it counted: a position in the list's order. */
export interface CountedUpTo {
  createdAt: string;
  id: string;
}

/**
 * Notifications remembered by id. The service keeps at most 1,000 a player; past this many the
 * oldest are forgotten, their unread folded into the count (a later mark of one is then taken off
 * it as of any notification the counts held).
 */
const MAX_SEEN = 2000;

/**
 * One player's unread count kept from the counts and the stream's frames (EXTENSIONS X9): the
 * counts (`GET …/counts`, read again on each connection) are the base; a `notification` frame
 * unread adds one; a `notifications.read` frame takes off the ids that were counted unread (an id
 * never met in a frame is one the counts held: the service names only ids it has just marked) or,
 * for `{ all, before }`, everything but what was met in frames created since `before`.
 *
 * Which frames the counts already hold: those arriving before the counts answered (they were
 * committed before), and those of notifications no newer than the newest the service listed just
 * before counting (a resumed stream replays what was written while it was away, and its replay may
 * outlast the counts' request). The list and the counts are two reads, and the stream a third: a
 * notification committed between the list's read and the counts' may be counted twice, a mark
 * committed just before the counts' read and told just after may be taken off twice, and one
 * written by a transaction open across a reconnection may be missed. The counts read on the next
 * connection settle each.
 */
export class UnreadTally {
  /** The counts' answer, less the marks of what it held. */
  private base = 0;
  /** Unread notifications met in frames since the counts answered. */
  private extra = 0;
  private readonly seen = new Map<string, Seen>();
  private awaiting = true;
  /** The newest notification the last counts held (null: the player had none). */
  private upTo: { createdAt: number; id: string } | null = null;

  get unread(): number {
    return this.base + this.extra;
  }

  /** True from a connection's opening until its counts answer. */
  get awaitingCounts(): boolean {
    return this.awaiting;
  }

  /** A connection opened: its counts are read, and what arrives until they answer is taken as in them. */
  recount(): void {
    this.awaiting = true;
  }

  /** The counts answered `unread`, with `upTo` listed just before: everything met so far is in it. */
  counted(unread: number, upTo: CountedUpTo | null): void {
    this.upTo = upTo && { createdAt: Date.parse(upTo.createdAt), id: upTo.id };
    this.base = unread;
    this.extra = 0;
    for (const s of this.seen.values()) s.inCount = true;
    this.awaiting = false;
  }

  apply(frame: NotificationFrame): void {
    if (frame.type === 'notification') this.notification(frame.notification);
    else if ('ids' in frame) for (const id of frame.ids) this.readOne(id);
    else this.readAll(Date.parse(frame.before));
    this.forgetOldest();
  }

  private notification(n: Notification): void {
    // A replay never repeats a notification; were one repeated, it counts once.
    if (this.seen.has(n.id)) return;
    const unread = n.readAt === null;
    const createdAt = Date.parse(n.createdAt);
    const inCount = this.awaiting || this.heldByCounts(createdAt, n.id);
    this.seen.set(n.id, { unread, createdAt, inCount });
    if (unread && !inCount) this.extra++;
  }

  /** Whether a notification sorts at or before the newest the counts held, in the list's order (createdAt, then id). */
  private heldByCounts(createdAt: number, id: string): boolean {
    if (!this.upTo) return false;
    return createdAt < this.upTo.createdAt || (createdAt === this.upTo.createdAt && id <= this.upTo.id);
  }

  private readOne(id: string): void {
    const s = this.seen.get(id);
    if (!s) {
      this.seen.set(id, { unread: false, createdAt: -Infinity, inCount: true });
      this.takeOffBase();
      return;
    }
    if (!s.unread) return;
    s.unread = false;
    if (s.inCount) this.takeOffBase();
    else this.extra--;
  }

  /** Everything unread when the player marked all is read: what frames showed created since stays unread. */
  private readAll(before: number): void {
    let stillCounted = 0;
    for (const s of this.seen.values()) {
      if (!s.unread) continue;
      // Both times are to the millisecond: one created in the mark's millisecond may be among those it marked.
      if (s.createdAt <= before) {
        s.unread = false;
        if (!s.inCount) this.extra--;
      } else if (s.inCount) stillCounted++;
    }
    if (!this.awaiting) this.base = stillCounted;
  }

  /** A mark of something the counts held; while they are awaited, their answer has it already. */
  private takeOffBase(): void {
    if (!this.awaiting) this.base = Math.max(0, this.base - 1);
  }

  private forgetOldest(): void {
    for (const [id, s] of this.seen) {
      if (this.seen.size <= MAX_SEEN) return;
      if (s.unread && !s.inCount) {
        this.extra--;
        this.base++;
      }
      this.seen.delete(id);
    }
  }
}
