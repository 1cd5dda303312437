import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Tracing } from '../observability/tracing/tracing';
import { TRACING } from '../observability/tracing/tracing.module';

/** Channel names are identifiers the service chooses; a payload is quoted below. */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/** A string literal for a server with standard_conforming_strings on (the default since 9.1). */
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * The NOTIFYs that only wake other instances' readers (a game's events to read, deliveries to
 * claim, a player's notifications) or end cached answers sooner than their 60 s, sent after the commit of the writes that call for them, many commits' worth in one
 * statement, in a transaction that does not wait for its WAL flush.
 *
 * Why not with the write, as pg_notify would have it: PostgreSQL serialises the commits of the
 * transactions that NOTIFY (a database-wide lock from before the commit record until after its
 * flush), so such writes never share a flush. Measured on PostgreSQL 15, fsync on, 50 clients: a
 * one-row insert ran at 4,450 transactions a second alone and 1,900 with a NOTIFY. Sent apart with
 * synchronous_commit off, the lock is held for microseconds, and while one send is out the next
 * commits' announcements gather for the one after it.
 *
 * Only such signals go this way: a lost one costs latency, never an event or a wrong answer past a
 * cache entry's life. The readers read what is committed, not what is announced, and look anyway
 * (the streams every second, the webhook worker every 5 s; cached permission answers and unread
 * counts end within 60 s), so a process dying between its commit and the send, or a database that
 * cannot be reached, delays what others see by at most that. Signals whose loss would leave a cache
 * wrong with nothing to end it (API keys, game configurations, read marks, an erasure) stay in the
 * writing transaction (Tx.notify).
 */
@Injectable()
export class CommitAnnouncer {
  private readonly logger = new Logger(CommitAnnouncer.name);
  private readonly pending = new Map<string, Set<string>>();
  private draining = false;
  private drained: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    @Optional() @Inject(TRACING) private readonly tracing: Tracing | null = null,
  ) {}

  /** To be called once the writes that call for it have committed. */
  announce(channel: string, payloads: Iterable<string>): void {
    if (!CHANNEL.test(channel)) throw new Error(`invalid channel name ${channel}`);
    let set = this.pending.get(channel);
    if (!set) this.pending.set(channel, (set = new Set()));
    for (const p of payloads) set.add(p);
    if (this.draining) return;
    this.draining = true;
    // The commits of this turn of the event loop go in the same send.
    this.drained = new Promise((resolve) => setImmediate(() => void this.drain().then(resolve)));
  }

  /** Resolves once every announcement made so far has been sent (or failed): the pool may close then. */
  settled(): Promise<void> {
    return this.drained;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.size) {
        const batch = [...this.pending].flatMap(([channel, payloads]) => [...payloads].map((p) => `(${literal(channel)}, ${literal(p)})`));
        this.pending.clear();
        // One simple-protocol query is one implicit transaction, so SET LOCAL holds for its commit,
        // and an error leaves the pooled connection as it found it.
        const sql = `SET LOCAL synchronous_commit TO off; SELECT count(pg_notify(c, p)) FROM (VALUES ${batch.join(', ')}) AS n(c, p)`;
        const send = () => this.dataSource.manager.query(sql);
        await (this.tracing ? this.tracing.detached(send) : send()).catch((err: unknown) =>
          this.logger.debug(`announcement not sent (readers find the commits at their next look): ${err instanceof Error ? err.message : String(err)}`),
        );
      }
    } finally {
      this.draining = false;
    }
  }
}
