import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GameReads } from '../common/bulkhead/game-reads';
import type { Release } from '../common/bulkhead/game-bulkhead';
import { ApiError } from '../common/errors/api-error';
import { logFailure } from '../common/errors/log-failure';
import { PgListener } from '../db/pg-listener';
import { HEARTBEAT_MS } from '../events/event-streams';
import { FEED_START, isAfter, type FeedPosition } from '../events/feed-position';
import { writeStreamHead } from '../events/sse-head';
import { StreamStats } from '../events/stream-stats';
import { NOTIFICATIONS_CHANNEL, parseSignal } from './notification-channel';
import { NotificationFeedRepository, type StreamedNotification } from './notification-feed.repository';
import { NotificationSubscriber, notificationFrame, readFrame } from './notification-subscriber';

/** Notifications read per poll of the live tail (over every player), and per page of a replay. */
const TAIL_BATCH = 1000;
const REPLAY_PAGE = 1000;
/** While committed notifications wait behind an open transaction, the tail looks again this often. */
const HELD_RETRY_MS = 20;
/** A poll however quiet it is: covers a signal lost while the listener reconnected. */
const SAFETY_POLL_MS = 1000;

/** A resume id, with the slot of the game's expensive reads its replay's first page is read in. */
export interface NotificationResume {
  id: string;
  slot: Release;
}

interface PlayerTail {
  gameId: string;
  externalId: string;
  /** Null while the game has never seen the player: the tail resolves it when the game does. */
  svcUserId: string | null;
  /** Where the live tail reads on from for this player. */
  position: FeedPosition;
  subs: Set<NotificationSubscriber>;
}

const byExternal = (gameId: string, externalId: string) => `${gameId}:${externalId}`;
const byInternal = (gameId: string, svcUserId: string) => `${gameId}:${svcUserId}`;

/**
 * The players' notification streams of this instance (EXTENSIONS X9), fed by one live tail for
 * them all: woken by the notifications' signal (NOTIFICATIONS_CHANNEL, sent with the commit and
 * heard by every instance, this one included) and by a safety poll, it reads the new notifications
 * of every player with a stream here in one statement, in feed order below the horizon (see
 * NotificationFeedRepository), and hands each to that player's subscribers. Read marks, which are
 * no rows a stream could read again, come with the signal and go to the player's streams as
 * `notifications.read` frames. Streams with a resume id first replay the player's notifications
 * from there, then join the tail without a gap or a repeat.
 */
@Injectable()
export class NotificationStreams implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(NotificationStreams.name);
  private readonly players = new Map<string, PlayerTail>();
  /** The same tails by internal id, as the signals name players; the unresolved ones apart. */
  private readonly resolved = new Map<string, PlayerTail>();
  private readonly unresolved = new Set<PlayerTail>();
  /**
   * Read marks heard for players with streams here, passed on after the next read of the tail has
   * been dispatched: a read that started before the mark committed could otherwise deliver, after
   * the mark's frame, a notification it names still unread.
   */
  private pendingReads: { tail: PlayerTail; frame: Buffer }[] = [];
  /** The furthest position the tail has read: a database that has not reached its transaction went back in time. */
  private known: FeedPosition = FEED_START;
  private timers: NodeJS.Timeout[] = [];
  private retry?: NodeJS.Timeout;
  private polling = false;
  private again = false;
  private stopped = false;
  /** Set while reads of the tail fail: a run of failures (a database outage) logs once. */
  private tailFailing = false;

  constructor(
    private readonly listener: PgListener,
    private readonly repo: NotificationFeedRepository,
    private readonly bulkheads: GameReads,
    private readonly stats: StreamStats,
  ) {
    stats.countOpen(() => ({ notifications: this.size }));
  }

  onModuleInit(): void {
    this.listener.subscribe(NOTIFICATIONS_CHANNEL, (payload) => this.heard(payload), () => this.unheard());
    this.timers.push(setInterval(() => this.heartbeat(), HEARTBEAT_MS).unref());
    this.timers.push(setInterval(() => this.players.size && this.wake(), SAFETY_POLL_MS).unref());
  }

  /** Open streams (for the metrics, diagnostics and tests). */
  get size(): number {
    let n = 0;
    for (const p of this.players.values()) n += p.subs.size;
    return n;
  }

  /**
   * Registers a stream of the player (external id), then sends the 200 headers: a notification
   * committed after the client has them reaches it. With `resume`, the player's notifications after
   * it are replayed first; a resume id that names no notification of this player is 410, before
   * anything of the stream is sent. The resume's slot is released here whatever happens.
   */
  async open(gameId: string, externalId: string, resume: NotificationResume | null, takeOver: () => { req: IncomingMessage; res: ServerResponse }): Promise<void> {
    const firstRead = resume?.slot ?? null;
    let start;
    try {
      start = await this.repo.start(gameId, externalId, resume?.id ?? null);
    } catch (err) {
      firstRead?.();
      throw err;
    }
    if (resume && !start.after) {
      firstRead?.();
      throw new ApiError(
        'events_expired',
        `notification ${resume.id} is not kept for this player: dismissed, swept (past retention or the newest 1,000), another player's, or unknown; start again without a resume id`,
      );
    }
    // Until here a failure is still an ordinary error response; from here the stream writes its own bytes.
    const { req, res } = takeOver();
    // A client gone during the lookup above will never fire the close handlers below.
    if (res.destroyed || req.socket.destroyed) {
      firstRead?.();
      res.destroy();
      return;
    }
    const tail = this.tailOf(gameId, externalId, start.svcUserId, start.head);
    const sub = new NotificationSubscriber(res, start.after ?? tail.position, resume !== null, this.stats);
    if (!resume) sub.startedAfter = start.snapshot;
    tail.subs.add(sub);
    const drop = () => this.remove(tail, sub);
    req.once('close', drop);
    res.once('close', drop);
    writeStreamHead(req, res);
    // As the group stream: a live-only stream names the player's last notification in a frame with
    // no data, which a client whose connection drops before its first notification resumes after.
    if (!resume && start.lastId !== null) res.write(`id: ${start.lastId}\n\n`);
    if (firstRead) {
      this.replay(tail, sub, firstRead).catch((err) => {
        // Refused a slot mid-way (the game's line full): the client resumes from its last notification.
        if (!(err instanceof ApiError)) logFailure(this.logger, err, 'notification stream replay failed; closing the stream', { gameId });
        res.destroy();
      });
    }
  }

  /** Clean close on shutdown: every stream ends, before the HTTP server stops. */
  beforeApplicationShutdown(): void {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    if (this.retry) clearTimeout(this.retry);
    for (const p of this.players.values()) for (const sub of p.subs) sub.res.end();
    this.forget();
  }

  /** The player's tail; a new one reads on from the head below the horizon when its first stream opened. */
  private tailOf(gameId: string, externalId: string, svcUserId: string | null, head: FeedPosition | null): PlayerTail {
    let tail = this.players.get(byExternal(gameId, externalId));
    if (!tail) {
      tail = { gameId, externalId, svcUserId: null, position: head ?? FEED_START, subs: new Set() };
      this.players.set(byExternal(gameId, externalId), tail);
      this.unresolved.add(tail);
    }
    if (tail.svcUserId === null && svcUserId !== null) this.resolve(tail, svcUserId);
    return tail;
  }

  private resolve(tail: PlayerTail, svcUserId: string): void {
    tail.svcUserId = svcUserId;
    this.unresolved.delete(tail);
    this.resolved.set(byInternal(tail.gameId, svcUserId), tail);
  }

  /**
   * Reads the player's notifications from the subscriber's position up to the live tail, then hands
   * over to it. Each page is read in a slot of the game's expensive reads (the first one taken
   * before the headers), held only while the page is read, not while the client takes it.
   */
  private async replay(tail: PlayerTail, sub: NotificationSubscriber, firstRead: Release): Promise<void> {
    // A resume id was found among the player's notifications: the game has seen the player.
    const svcUserId = tail.svcUserId!;
    let slot: Release | null = firstRead;
    try {
      while (!sub.closed) {
        // A short page read entirely after the subscriber joined the tail covers everything the tail
        // had passed by then (those rows were below an older horizon); the held frames cover the rest.
        const generation = sub.generation;
        slot ??= await this.bulkheads.reads.enter(tail.gameId);
        const page = await this.repo.page(tail.gameId, svcUserId, sub.position, REPLAY_PAGE).finally(() => {
          slot?.();
          slot = null;
        });
        for (const n of page) await sub.replayed(n);
        if (page.length < REPLAY_PAGE && generation === sub.generation) {
          sub.goLive();
          return;
        }
      }
    } finally {
      slot?.();
    }
  }

  /**
   * A signal: a new notification wakes the tail if it may concern a stream here; read marks are
   * queued for the player's streams. Removals (the sweep, an erasure) are for the unread counts'
   * cache alone: a stream sends nothing for them.
   */
  private heard(payload: string): void {
    const signal = parseSignal(payload);
    if (!signal || signal.t === 'removed' || this.stopped) return;
    const tail = this.resolved.get(byInternal(signal.g, signal.u));
    if (signal.t === 'read') {
      if (!tail) return;
      this.pendingReads.push({ tail, frame: Buffer.from(readFrame(signal)) });
      this.wake();
      return;
    }
    // A player the game had not seen when their stream opened may be the one just written to.
    if (tail || [...this.unresolved].some((t) => t.gameId === signal.g)) this.wake();
  }

  /**
   * The listener reconnected: read marks announced meanwhile never reached this instance, so its
   * streams can no longer keep their clients' unread counts. They end; each client reconnects with
   * its Last-Event-ID (missing no notification) and counts again.
   */
  private unheard(): void {
    if (!this.players.size) return;
    this.logger.warn({ streams: this.size }, 'notification streams ended: read marks may have been announced while the listener was reconnecting');
    this.endAll('unheard');
  }

  private wake(): void {
    if (this.stopped || !this.players.size) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    void this.poll();
  }

  private async poll(): Promise<void> {
    this.polling = true;
    let reads: { tail: PlayerTail; frame: Buffer }[] = [];
    try {
      do {
        this.again = false;
        const asked = new Map([...this.players.values()].map((tail) => [tail, tail.position]));
        if (!asked.size) {
          // Marks for players whose streams have all gone since.
          this.pendingReads = [];
          break;
        }
        // Marks heard before this read began: it sees them, so no notification it reads contradicts them.
        reads = this.pendingReads.splice(0);
        const cursors = [...asked].map(([tail, position]) => ({ gameId: tail.gameId, svcUserId: tail.svcUserId, externalId: tail.externalId, position }));
        const read = await this.repo.tail(cursors, this.known, TAIL_BATCH);
        if (read.rewound) {
          reads = [];
          this.rewound();
          break;
        }
        for (const r of read.resolved) {
          const tail = this.players.get(byExternal(r.gameId, r.externalId));
          if (tail?.svcUserId === null && asked.has(tail)) this.resolve(tail, r.svcUserId);
        }
        for (const n of read.items) {
          const tail = this.resolved.get(byInternal(n.gameId, n.svcUserId));
          // A tail stopped (and maybe restarted) during the read is skipped: the new one reads for itself.
          if (!tail || !asked.has(tail)) continue;
          tail.position = n.position;
          this.dispatch(tail, n);
        }
        // Every notification of the players asked about up to there was in the answer.
        const complete = read.items.length < TAIL_BATCH;
        const upTo = complete ? read.head : read.items[read.items.length - 1].position;
        if (upTo) for (const tail of asked.keys()) if (isAfter(upTo, tail.position)) tail.position = upTo;
        if (read.head && isAfter(read.head, this.known)) this.known = read.head;
        for (const { tail, frame } of reads) for (const sub of tail.subs) sub.offerUnordered(frame);
        reads = [];
        if (!complete) this.again = true;
        if (read.held) this.retryLater(HELD_RETRY_MS);
      } while (this.again && !this.stopped);
      if (this.tailFailing) this.logger.log('reading the notifications\' live tail works again');
      this.tailFailing = false;
    } catch (err) {
      // The marks are passed on after the next read that works.
      this.pendingReads.unshift(...reads);
      if (!this.tailFailing) logFailure(this.logger, err, `reading the notifications' live tail failed; retrying every ${SAFETY_POLL_MS} ms`);
      this.tailFailing = true;
      this.retryLater(SAFETY_POLL_MS);
    } finally {
      this.polling = false;
    }
  }

  private retryLater(ms: number): void {
    if (this.retry || this.stopped) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.wake();
    }, ms).unref();
  }

  /**
   * The database has not reached the transaction of a notification this instance has read: it went
   * back in time (failed over to a replica without it), and what it writes next may sort before
   * what the clients have. Their streams end; each client resumes with its Last-Event-ID, from the
   * database as it now is (410 for a notification it lost).
   */
  private rewound(): void {
    this.logger.warn(
      { streams: this.size },
      'the database has not reached the last notification read for the streams (failed over to a replica without it): ending them, ' +
        'so that each client resumes from what the database holds',
    );
    this.endAll('rewound');
  }

  private endAll(reason: 'rewound' | 'unheard'): void {
    for (const p of this.players.values()) {
      this.stats.cutOff[reason] += p.subs.size;
      for (const sub of p.subs) {
        sub.closed = true;
        sub.res.end();
      }
    }
    this.forget();
  }

  private forget(): void {
    this.players.clear();
    this.resolved.clear();
    this.unresolved.clear();
    this.pendingReads = [];
    this.known = FEED_START;
  }

  private dispatch(tail: PlayerTail, n: StreamedNotification): void {
    // Encoded once: every subscriber's socket then writes the same bytes instead of encoding its own copy.
    let frame: Buffer | undefined;
    const once = () => (frame ??= Buffer.from(notificationFrame(n.view)));
    for (const sub of tail.subs) sub.offer(n, once);
  }

  private heartbeat(): void {
    for (const p of this.players.values()) for (const sub of p.subs) sub.write(':heartbeat\n\n');
  }

  private remove(tail: PlayerTail, sub: NotificationSubscriber): void {
    sub.closed = true;
    tail.subs.delete(sub);
    if (tail.subs.size || this.players.get(byExternal(tail.gameId, tail.externalId)) !== tail) return;
    this.players.delete(byExternal(tail.gameId, tail.externalId));
    this.unresolved.delete(tail);
    if (tail.svcUserId !== null) this.resolved.delete(byInternal(tail.gameId, tail.svcUserId));
  }
}
