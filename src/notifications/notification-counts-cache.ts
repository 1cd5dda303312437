import { Injectable, type OnModuleInit } from '@nestjs/common';
import { PgListener } from '../db/pg-listener';
import { EventBus } from '../events/event-bus';
import type { Tx } from '../db/unit-of-work';
import type { NotificationCountsDto } from './dto/notification.dto';
import { NOTIFICATIONS_CHANNEL, parseSignal } from './notification-channel';

/** A safety net only (a signal lost some other way than a listener reconnect): every change drops its player's entry. */
const COUNTS_TTL_MS = 60_000;
/** A memory bound: past it the entries stored longest ago go first. */
const MAX_ENTRIES = 100_000;

interface Entry {
  svcUserId: string;
  counts: NotificationCountsDto;
  expires: number;
}

/** The counts of a player as read from the database; `svcUserId` null for a player the game has never seen. */
export interface ReadCounts {
  svcUserId: string | null;
  counts: NotificationCountsDto;
}

const external = (gameId: string, userId: string) => `${gameId}\n${userId}`;
const internal = (gameId: string, svcUserId: string) => `${gameId}\n${svcUserId}`;

/**
 * The unread counts of players (EXTENSIONS X9) in this instance's memory, by (game, external id),
 * with the internal id they resolved to, since the signals name players by it. Every change to a
 * player's unread ones signals on NOTIFICATIONS_CHANNEL with its commit (read marks, a dismissal of
 * an unread one, the sweep's removals, an erasure) or just after it (a new notification, gathered
 * with other commits' by CommitAnnouncer; lost only if the writer dies in between, when the entry's
 * 60 s bound is what ends it): every instance, this one included, drops the entry when it hears it; every change made here drops it at once too, so
 * a caller reads its own change on this instance. Only known players are kept:
 * an unknown one gains notifications without any entry naming their (future) internal id.
 */
@Injectable()
export class NotificationCountsCache implements OnModuleInit {
  private readonly entries = new Map<string, Entry>();
  /** The external key of each entry, by internal id. */
  private readonly byInternal = new Map<string, string>();
  /**
   * The generation guard: the `seq` of each player's last invalidation while reads are in flight
   * (with none, no read can have started before one, and nothing is recorded).
   */
  private readonly invalidated = new Map<string, number>();
  private seq = 0;
  private epoch = 0;
  private inFlight = 0;

  constructor(
    private readonly listener: PgListener,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    // A notification written here drops its player's entry at commit, before the signal is heard back.
    this.bus.notified$.subscribe(({ gameId, svcUserId }) => this.invalidate(gameId, svcUserId));
    this.listener.subscribe(
      NOTIFICATIONS_CHANNEL,
      (payload) => {
        const signal = parseSignal(payload);
        if (signal) this.invalidate(signal.g, signal.u);
      },
      // Signals sent while the listener was away are lost: nothing kept can be trusted.
      () => this.clear(),
    );
  }

  /** The player's cached counts, else `read`'s, stored unless their player was invalidated while they were read. */
  async get(gameId: string, userId: string, read: () => Promise<ReadCounts>): Promise<NotificationCountsDto> {
    const key = external(gameId, userId);
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.counts;
    if (hit) this.drop(key, hit);
    const { epoch, seq } = this;
    this.inFlight++;
    try {
      const { svcUserId, counts } = await read();
      const current = epoch === this.epoch && (svcUserId === null || (this.invalidated.get(internal(gameId, svcUserId)) ?? 0) <= seq);
      if (svcUserId !== null && current) this.store(key, internal(gameId, svcUserId), svcUserId, counts);
      return counts;
    } finally {
      this.inFlight--;
    }
  }

  invalidate(gameId: string, svcUserId: string): void {
    const id = internal(gameId, svcUserId);
    if (!this.inFlight) this.invalidated.clear();
    // Past the bound, starting over is as safe: the reads in flight store nothing.
    else if (this.invalidated.size >= MAX_ENTRIES) this.clear();
    else this.invalidated.set(id, ++this.seq);
    const key = this.byInternal.get(id);
    const entry = key === undefined ? undefined : this.entries.get(key);
    if (entry) this.drop(key!, entry);
  }

  clear(): void {
    this.epoch++;
    this.seq = 0;
    this.entries.clear();
    this.byInternal.clear();
    this.invalidated.clear();
  }

  /** Drops the player's entry here once `tx` commits: the signal `tx` sends drops it elsewhere (and here again). */
  invalidateOnCommit(tx: Tx, gameId: string, svcUserId: string): void {
    tx.afterCommit(() => this.invalidate(gameId, svcUserId));
  }

  private store(key: string, id: string, svcUserId: string, counts: NotificationCountsDto): void {
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    else if (this.entries.size >= MAX_ENTRIES) this.evictOldest();
    this.entries.set(key, { svcUserId, counts, expires: Date.now() + COUNTS_TTL_MS });
    this.byInternal.set(id, key);
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    const id = internal(key.slice(0, key.indexOf('\n')), entry.svcUserId);
    if (this.byInternal.get(id) === key) this.byInternal.delete(id);
  }

  private evictOldest(): void {
    for (const [key, entry] of this.entries) {
      this.drop(key, entry);
      if (this.entries.size < MAX_ENTRIES * 0.9) return;
    }
  }
}
