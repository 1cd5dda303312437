import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { parsePosition } from './consistency-token';

/** Where a lag-tolerant read went, and why: the families of svc_db_replica_reads_total. */
export const READ_OUTCOMES = ['replica', 'primary_lagging', 'primary_token_wait', 'primary_unreadable_token', 'primary_replica_unreachable'] as const;
export type ReadOutcome = (typeof READ_OUTCOMES)[number];

export interface ReplicaRouterOptions {
  maxLagMs: number;
  waitMs: number;
  /** How long one measurement of the lag serves (its age is counted in the lag). */
  checkEveryMs?: number;
  /** Between two reads of the replay position while reads wait for a token. */
  pollEveryMs?: number;
  /** How long an unreachable replica is left alone before it is tried again. */
  retryAfterMs?: number;
}

interface Waiter {
  token: bigint;
  timer?: NodeJS.Timeout;
  done(result: 'replayed' | 'timeout' | 'unreachable'): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Decides, per read, whether the replica may serve it (docs/read-replicas.md):
 * - it must be at most maxLagMs behind. The lag is measured at most every checkEveryMs, never per
 *   request, by comparing the replica's replay position with the primary's flushed WAL: a replica
 *   that has replayed all of it has lag 0 even when nothing was written for an hour (the replay
 *   timestamp would say an hour). Behind, the lag is bounded both by the age of its last replayed
 *   commit and by the time since it was last seen caught up, whichever is less; a measurement's
 *   age is added to it, so the cache never makes the replica look fresher than it can be;
 * - a read that carries a consistency token also needs the replica to have replayed that position:
 *   it waits up to waitMs (the waiting reads share one poll of the replay position), else the
 *   primary serves it.
 * The replay position seen last is remembered, so a token already replayed costs no query.
 */
export class ReplicaRouter {
  readonly outcomes: Record<ReadOutcome, number> = { replica: 0, primary_lagging: 0, primary_token_wait: 0, primary_unreadable_token: 0, primary_replica_unreachable: 0 };
  /** Time reads with a token spent waiting for the replica, seconds. */
  tokenWaitSeconds = 0;

  private readonly logger = new Logger('ReplicaRouter');
  private readonly checkEveryMs: number;
  private readonly pollEveryMs: number;
  private readonly retryAfterMs: number;
  private replayed = -1n;
  private check: { at: number; lagMs: number } | null = null;
  private caughtUpAt = Number.NEGATIVE_INFINITY;
  private measuring: Promise<void> | null = null;
  private readonly waiters = new Set<Waiter>();
  private pumping = false;
  private downUntil = 0;
  private connecting: Promise<void> | null = null;

  constructor(
    private readonly primary: DataSource,
    readonly replica: DataSource,
    private readonly options: ReplicaRouterOptions,
  ) {
    this.checkEveryMs = options.checkEveryMs ?? 100;
    this.pollEveryMs = options.pollEveryMs ?? 5;
    this.retryAfterMs = options.retryAfterMs ?? 1_000;
  }

  /**
   * The replica when it may serve a read carrying `token` (or none), else null: the primary serves
   * it. An `unreadable` token (sealed under another key, or of an earlier release) names a write
   * the replica may lack, and no position to wait for: the primary serves it at once.
   */
  async route(token: bigint | null | 'unreadable'): Promise<DataSource | null> {
    const outcome = await this.decide(token);
    this.outcomes[outcome]++;
    return outcome === 'replica' ? this.replica : null;
  }

  /** The lag as far as the last measurement tells (ms), or null before the first one. */
  lagMs(now = Date.now()): number | null {
    if (!this.check) return null;
    return Math.min(this.check.lagMs + (now - this.check.at), now - this.caughtUpAt);
  }

  /**
   * The lag for the metrics (ms), measured now when no read has measured it for `maxAgeMs`: without
   * reads, the last measurement's age would count as lag, and a quiet replica that replays every
   * write would look further behind at every scrape. Null when it cannot be measured within
   * `timeoutMs`, or the replica is unreachable.
   */
  async scrapeLagMs(maxAgeMs: number, timeoutMs: number): Promise<number | null> {
    if (!this.replica.isInitialized || Date.now() < this.downUntil) return null;
    if (!this.check || Date.now() - this.check.at >= maxAgeMs) {
      let timer: NodeJS.Timeout | undefined;
      const measured = await Promise.race([
        this.measure().then(
          () => true,
          () => false,
        ),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
      ]).finally(() => clearTimeout(timer));
      if (!measured) return null;
    }
    return this.lagMs();
  }

  private async decide(token: bigint | null | 'unreadable'): Promise<ReadOutcome> {
    if (token === 'unreadable') return 'primary_unreadable_token';
    if (!this.replica.isInitialized) {
      this.reconnect();
      return 'primary_replica_unreachable';
    }
    if (Date.now() < this.downUntil) return 'primary_replica_unreachable';
    try {
      if (!this.check || Date.now() - this.check.at >= this.checkEveryMs) await this.measure();
    } catch (err) {
      this.unreachable(err);
      return 'primary_replica_unreachable';
    }
    if ((this.lagMs() ?? Infinity) > this.options.maxLagMs) return 'primary_lagging';
    if (token === null || this.replayed >= token) return 'replica';
    const started = performance.now();
    const waited = await this.waitFor(token);
    this.tokenWaitSeconds += (performance.now() - started) / 1000;
    if (waited === 'replayed') return 'replica';
    return waited === 'timeout' ? 'primary_token_wait' : 'primary_replica_unreachable';
  }

  /** One measurement at a time: the reads that need it meanwhile share it. */
  private measure(): Promise<void> {
    this.measuring ??= this.measureNow().finally(() => (this.measuring = null));
    return this.measuring;
  }

  private async measureNow(): Promise<void> {
    const at = Date.now();
    // The primary first: whatever it had flushed then, a replica that has replayed as far has.
    const [primary] = (await this.primary.query('SELECT pg_current_wal_flush_lsn()::text AS flushed')) as { flushed: string }[];
    const [replica] = (await this.replica.query(
      `SELECT pg_last_wal_replay_lsn()::text AS replayed,
              (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS behind_ms`,
    )) as { replayed: string | null; behind_ms: number | null }[];
    const flushed = parsePosition(primary.flushed) ?? Infinity;
    // A server that is not replaying (no standby, or one promoted) has no replay position: never fresh.
    const replayed = replica.replayed === null ? null : parsePosition(replica.replayed);
    if (replayed !== null) this.sawReplayed(replayed);
    const caughtUp = replayed !== null && replayed >= (flushed as bigint);
    if (caughtUp) this.caughtUpAt = at;
    this.check = { at, lagMs: caughtUp ? 0 : (replayed === null ? Infinity : (replica.behind_ms ?? Infinity)) };
  }

  private waitFor(token: bigint): Promise<'replayed' | 'timeout' | 'unreachable'> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        token,
        done: (result) => {
          if (!this.waiters.delete(waiter)) return;
          clearTimeout(waiter.timer);
          resolve(result);
        },
      };
      waiter.timer = setTimeout(() => waiter.done('timeout'), this.options.waitMs);
      this.waiters.add(waiter);
      void this.pump();
    });
  }

  /** Reads the replay position while reads wait for it, one query at a time for all of them. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiters.size) {
        let replayed: bigint;
        try {
          const [row] = (await this.replica.query('SELECT pg_last_wal_replay_lsn()::text AS replayed')) as { replayed: string | null }[];
          replayed = (row.replayed !== null && parsePosition(row.replayed)) || -1n;
        } catch (err) {
          this.unreachable(err);
          for (const w of [...this.waiters]) w.done('unreachable');
          return;
        }
        this.sawReplayed(replayed);
        for (const w of [...this.waiters]) if (replayed >= w.token) w.done('replayed');
        if (this.waiters.size) await sleep(this.pollEveryMs);
      }
    } finally {
      this.pumping = false;
    }
  }

  private sawReplayed(position: bigint): void {
    if (position > this.replayed) this.replayed = position;
  }

  private unreachable(err: unknown): void {
    if (Date.now() >= this.downUntil) this.logger.warn({ err }, 'the read replica is unreachable: reads go to the primary');
    this.downUntil = Date.now() + this.retryAfterMs;
    // Another server may answer at that address next (a failover): what this one replayed tells nothing.
    this.replayed = -1n;
    this.check = null;
  }

  /** A replica that was down at boot is connected in the background, at most once per retry period. */
  private reconnect(): void {
    if (this.connecting || Date.now() < this.downUntil) return;
    this.connecting = this.replica
      .initialize()
      .then(() => undefined)
      .catch((err: unknown) => this.unreachable(err))
      .finally(() => (this.connecting = null));
  }
}
