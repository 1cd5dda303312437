import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Subscription } from 'rxjs';
import { GameReads } from '../common/bulkhead/game-reads';
import type { Release } from '../common/bulkhead/game-bulkhead';
import { ApiError } from '../common/errors/api-error';
import { logFailure } from '../common/errors/log-failure';
import { PgListener } from '../db/pg-listener';
import { EventBus } from './event-bus';
import { EVENTS_CHANNEL } from './event-notification';
import { FEED_START, isAfter, type FeedPosition, type TxSnapshot } from './feed-position';
import { FeedRepository, type FeedEvent } from './feed.repository';
import { writeStreamHead } from './sse-head';
import { StreamStats, type StreamKind } from './stream-stats';
import { eventFrame, StreamSubscriber, type StreamFilter } from './stream-subscriber';

/** SPEC §6: a comment frame every 30 s keeps proxies and clients from timing the stream out. */
export const HEARTBEAT_MS = 30_000;
/** Events read per game and per poll of the live tail, and per page of a replay. */
const TAIL_BATCH = 1000;
const REPLAY_PAGE = 1000;
/** While committed events wait behind an open transaction, the tail looks again this often. */
const HELD_RETRY_MS = 20;
/** A poll however quiet it is: covers a notification lost while the listener reconnected. */
const SAFETY_POLL_MS = 1000;

/**
 * Where a stream's replay starts, with the slot of the game's expensive reads its first page is
 * read in (docs/security.md, Bulkheads): taken before the position was resolved, so that a game
 * over its share is told 429 before anything of its stream is read.
 */
export interface ReplayStart {
  position: FeedPosition;
  slot: Release;
}

interface GameTail {
  /** The last event of the game this instance has handed to its subscribers. */
  position: FeedPosition;
  /** That event's id; null while the game has no event. */
  lastId: string | null;
  /** The furthest event any client of the game on this instance was sent (by the tail or a replay). */
  furthest: { position: FeedPosition; storedAt: number } | null;
  subs: Set<StreamSubscriber>;
}

/**
 * The open streams of this instance, fed by one live tail per game that has subscribers: it reads
 * the feed (in feed order, below the horizon; see FeedRepository) whenever a commit is announced,
 * here or by another instance, and hands each event to that game's subscribers. Streams with
 * `after` first replay the feed from there, then join the tail without a gap or a repeat.
 */
@Injectable()
export class EventStreams implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(EventStreams.name);
  private readonly games = new Map<string, GameTail>();
  private readonly starting = new Map<string, Promise<{ position: FeedPosition; id: string | null; storedAt: number }>>();
  private subscription?: Subscription;
  private timers: NodeJS.Timeout[] = [];
  private retry?: NodeJS.Timeout;
  private polling = false;
  private again = false;
  private stopped = false;
  /** Set while reads of the tail fail: a run of failures (a database outage) logs once. */
  private tailFailing = false;

  constructor(
    private readonly bus: EventBus,
    private readonly listener: PgListener,
    private readonly repo: FeedRepository,
    private readonly bulkheads: GameReads,
    /** Frames sent and streams cut off, for the metrics. */
    private readonly stats: StreamStats,
  ) {
    stats.countOpen(() => this.subscribersByKind());
  }

  onModuleInit(): void {
    // Local commits are announced by the unit of work, other instances' by their NOTIFY.
    this.subscription = this.bus.events$.subscribe(() => this.wake());
    this.listener.subscribe(EVENTS_CHANNEL, () => this.wake(), () => this.wake());
    this.timers.push(setInterval(() => this.heartbeat(), HEARTBEAT_MS).unref());
    this.timers.push(setInterval(() => this.games.size && this.wake(), SAFETY_POLL_MS).unref());
  }

  /** Subscribers across all games (for diagnostics and tests). */
  get size(): number {
    let n = 0;
    for (const g of this.games.values()) n += g.subs.size;
    return n;
  }

  /** Open subscribers by kind (for the metrics, at scrape time). */
  private subscribersByKind(): Partial<Record<StreamKind, number>> {
    const counts: Partial<Record<StreamKind, number>> = {};
    for (const g of this.games.values()) for (const sub of g.subs) counts[sub.kind] = (counts[sub.kind] ?? 0) + 1;
    return counts;
  }

  /**
   * Registers the subscriber with its game's tail, then sends the 200 headers (DECISIONS §26: an
   * event committed after a client has the headers reaches it). With `after`, the replay from there
   * runs first. Handshake errors must have been thrown before: nothing here answers with an error.
   */
  async open(
    gameId: string,
    filter: StreamFilter,
    after: ReplayStart | null,
    takeOver: () => { req: IncomingMessage; res: ServerResponse },
    kind: StreamKind = filter.groupId ? 'group' : 'game',
  ): Promise<void> {
    // The replay's first slot of the game's expensive reads is the caller's (taken before the
    // headers, so that a game over its share is told 429), released here whatever happens.
    const firstRead = after?.slot ?? null;
    let startedAfter: TxSnapshot | null;
    let tail: GameTail;
    try {
      startedAfter = after ? null : await this.repo.snapshot();
      tail = await this.tailOf(gameId);
    } catch (err) {
      firstRead?.();
      throw err;
    }
    // Until here a failure is still an ordinary error response; from here the stream writes its own bytes.
    const { req, res } = takeOver();
    // A client gone during the lookups above will never fire the close handlers below.
    if (res.destroyed || req.socket.destroyed) {
      firstRead?.();
      res.destroy();
      return;
    }
    const sub = new StreamSubscriber(gameId, filter, res, after?.position ?? tail.position, after !== null, kind, this.stats);
    sub.startedAfter = startedAfter;
    tail.subs.add(sub);
    const drop = () => this.remove(sub);
    req.once('close', drop);
    res.once('close', drop);
    writeStreamHead(req, res);
    // A live-only stream names where it starts, in a frame with no data (EventSource records the id
    // and dispatches nothing): a client whose connection drops before its first event resumes with
    // after=<that id> and misses nothing. The replay from there may also hold events of transactions
    // that committed just before this stream began, never one it already had.
    if (!after && tail.lastId !== null) res.write(`id: ${tail.lastId}\n\n`);
    if (firstRead) {
      this.replay(sub, firstRead).catch((err) => {
        // Refused a slot mid-way (the game's line full): the client resumes from its last event.
        if (!(err instanceof ApiError)) logFailure(this.logger, err, 'stream replay failed; closing the stream', { gameId });
        res.destroy();
      });
    }
  }

  /** Clean close on shutdown: every stream ends, before the HTTP server stops. */
  beforeApplicationShutdown(): void {
    this.stopped = true;
    this.subscription?.unsubscribe();
    for (const t of this.timers) clearInterval(t);
    if (this.retry) clearTimeout(this.retry);
    for (const g of this.games.values()) for (const sub of g.subs) sub.res.end();
    this.games.clear();
  }

  /** The game's tail, started (at the game's current end of the feed) by its first subscriber. */
  private async tailOf(gameId: string): Promise<GameTail> {
    for (;;) {
      const existing = this.games.get(gameId);
      if (existing) return existing;
      let start = this.starting.get(gameId);
      if (!start) {
        start = this.repo.head(gameId).then((h) => h ?? { position: FEED_START, id: null, storedAt: 0 });
        this.starting.set(gameId, start);
        start.finally(() => this.starting.delete(gameId)).catch(() => undefined);
      }
      const head = await start;
      // Another opener may have created it meanwhile: theirs is the one polled.
      if (!this.games.has(gameId)) {
        // A live-only stream opens with the head's id: a client may resume from it, so it counts as sent.
        const furthest = head.id === null ? null : { position: head.position, storedAt: head.storedAt };
        this.games.set(gameId, { position: head.position, lastId: head.id, furthest, subs: new Set() });
        // A commit announced while the tail was starting found nothing to wake.
        this.wake();
      }
    }
  }

  /**
   * Reads the feed from the subscriber's position up to the live tail, then hands over to it. Each
   * page is read in a slot of the game's expensive reads (the first one taken before the headers),
   * held only while the page is read, not while the client takes it.
   */
  private async replay(sub: StreamSubscriber, firstRead: Release): Promise<void> {
    const scope = { gameId: sub.gameId, groupId: sub.filter.groupId, types: sub.filter.types ? [...sub.filter.types] : null };
    let slot: Release | null = firstRead;
    try {
      while (!sub.closed) {
        // A short page read entirely after the subscriber joined the tail covers everything the tail
        // had passed by then (those rows were below an older horizon); the held events cover the rest.
        const generation = sub.generation;
        slot ??= await this.bulkheads.reads.enter(sub.gameId);
        const page = await this.repo.page(scope, sub.position, REPLAY_PAGE).finally(() => {
          slot?.();
          slot = null;
        });
        for (const e of page) {
          await sub.replayed(e);
          const tail = this.games.get(sub.gameId);
          if (tail) sent(tail, e);
        }
        if (page.length < REPLAY_PAGE && generation === sub.generation) {
          sub.goLive();
          return;
        }
      }
    } finally {
      slot?.();
    }
  }

  private wake(): void {
    if (this.stopped || !this.games.size) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    void this.poll();
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      do {
        this.again = false;
        const tails = [...this.games].map(([gameId, tail]) => ({ gameId, tail, position: tail.position, furthest: tail.furthest }));
        if (!tails.length) break;
        const { events, held, lost } = await this.repo.tail(tails, TAIL_BATCH);
        for (const { gameId, tail, position } of tails) {
          // A tail stopped (and maybe restarted elsewhere in the order) during the read is skipped.
          if (this.games.get(gameId) !== tail) continue;
          if (lost.has(gameId)) {
            this.end(gameId, tail);
            continue;
          }
          const list = events.get(gameId);
          if (!list?.length || tail.position !== position) continue;
          for (const e of list) this.dispatch(tail, e);
          tail.position = list[list.length - 1].position;
          tail.lastId = list[list.length - 1].body.id;
          sent(tail, list[list.length - 1]);
          if (list.length === TAIL_BATCH) this.again = true;
        }
        if (held) this.retryLater(HELD_RETRY_MS);
      } while (this.again && !this.stopped);
      if (this.tailFailing) this.logger.log('reading the live tail works again');
      this.tailFailing = false;
    } catch (err) {
      if (!this.tailFailing) logFailure(this.logger, err, `reading the live tail failed; retrying every ${SAFETY_POLL_MS} ms`);
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
   * The database no longer holds an event this instance sent the game's clients: it went back in
   * time, and its next events may sort before what they have. Their streams end; each client
   * resumes with its Last-Event-ID, from the database as it now is (410 for an event it lost).
   */
  private end(gameId: string, tail: GameTail): void {
    this.logger.warn(
      { gameId, streams: tail.subs.size },
      'the database no longer holds the last event sent on this game\'s streams (restored to an earlier point, or failed over ' +
        'to a replica without it): ending them, so that each client resumes from what the database holds',
    );
    this.games.delete(gameId);
    this.stats.cutOff.rewound += tail.subs.size;
    for (const sub of tail.subs) {
      sub.closed = true;
      sub.res.end();
    }
  }

  private dispatch(tail: GameTail, e: FeedEvent): void {
    // Encoded once: every subscriber's socket then writes the same bytes instead of encoding its own copy.
    let frame: Buffer | undefined;
    const once = () => (frame ??= Buffer.from(eventFrame(e.body)));
    for (const sub of tail.subs) sub.offer(e, once);
  }

  private heartbeat(): void {
    for (const g of this.games.values()) for (const sub of g.subs) sub.write(':heartbeat\n\n');
  }

  private remove(sub: StreamSubscriber): void {
    sub.closed = true;
    const tail = this.games.get(sub.gameId);
    if (!tail) return;
    tail.subs.delete(sub);
    if (!tail.subs.size) this.games.delete(sub.gameId);
  }
}

/** Records that a client of the game was sent `e`: the tail checks that the database still holds the furthest one. */
function sent(tail: GameTail, e: FeedEvent): void {
  if (!tail.furthest || isAfter(e.position, tail.furthest.position)) tail.furthest = { position: e.position, storedAt: e.storedAt };
}
