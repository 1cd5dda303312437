import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { logFailure } from '../common/errors/log-failure';
import { PeriodicTask } from '../common/scheduling/periodic-task';
import { SuggestionsRepository } from './suggestions.repository';

// Every 5 s: an idle instance sends one statement per tick, and during an outage logs one line a tick.
export const REFRESH_EVERY_MS = 5000;
/** Users taken off the queue a tick, and kept lists recomputed around them at most. */
export const REFRESH_CLAIM = 50;
export const REFRESH_LISTS = 10;

/**
 * Recomputes, ahead of their next read, the kept suggestion lists that a friendship change left
 * stale. Every instance runs it; the queue is claimed under SKIP LOCKED, so none waits on another
 * and no user is taken twice. The work a tick is capped, so that under a burst of friendship
 * changes it takes a bounded share of the database: what it does not reach is computed on read, as
 * a list is always checked against its counters whoever computed it.
 */
@Injectable()
export class SuggestionsRefresher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(SuggestionsRefresher.name);
  private readonly task = new PeriodicTask(async () => {
    await this.refresh();
  });

  constructor(
    private readonly db: DataSource,
    private readonly registry: SchedulerRegistry,
    private readonly suggestions: SuggestionsRepository,
  ) {}

  onApplicationBootstrap(): void {
    const run = () => this.task.trigger().catch((err) => logFailure(this.logger, err, 'friend suggestions refresh failed'));
    this.registry.addInterval('friend-suggestions', setInterval(run, REFRESH_EVERY_MS));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.registry.deleteInterval('friend-suggestions');
    await this.task.stop(10_000);
  }

  /** One tick: the users claimed and the lists recomputed around them. */
  async refresh(): Promise<{ claimed: number; refreshed: number }> {
    const changed = await this.suggestions.claimChanged(this.db, REFRESH_CLAIM);
    if (changed.length === 0) return { claimed: 0, refreshed: 0 };
    const stale = await this.suggestions.staleNear(this.db, changed, REFRESH_LISTS);
    for (const list of stale) {
      await this.suggestions.compute(this.db, { callingGameId: list.gameId, ...list, limit: 0 });
    }
    return { claimed: changed.length, refreshed: stale.length };
  }
}
