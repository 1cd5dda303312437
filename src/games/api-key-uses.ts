import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { ApiKeyUseLog } from '../common/auth/api-key-lookup';
import { logFailure } from '../common/errors/log-failure';
import { PeriodicTask } from '../common/scheduling/periodic-task';
import { UnitOfWork } from '../db/unit-of-work';
import { GamesRepository } from './games.repository';

/** How often an instance writes the key uses it noted: a key's lastUsedAt lags its last use by at most this. */
const KEY_USES_WRITE_EVERY_MS = 60_000;
const INTERVAL = 'api-key-uses';

/**
 * When each API key was last used, without a write on the authentication path (SPEC §5 keeps key
 * checks free of round trips): each instance notes in memory the latest use of every key it
 * accepted, and writes them all once a minute, and when it shuts down, in one statement. Instances
 * write independently and out of step; the statement only ever moves a key's lastUsedAt forward,
 * so an instance writing older uses after another wrote newer ones takes nothing back. A crash
 * loses the uses of the minute it had not written.
 */
@Injectable()
export class ApiKeyUses implements ApiKeyUseLog, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ApiKeyUses.name);
  /** Key id → the latest use noted since the last write (epoch ms). Bounded by the keys that exist. */
  private pending = new Map<string, number>();
  private readonly task = new PeriodicTask(() => this.write());

  constructor(
    private readonly repo: GamesRepository,
    private readonly uow: UnitOfWork,
    private readonly registry: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    this.registry.addInterval(INTERVAL, setInterval(() => void this.flush(), KEY_USES_WRITE_EVERY_MS));
  }

  async beforeApplicationShutdown(): Promise<void> {
    // The scheduler clears its intervals as it shuts down too, before or after this, as Nest orders
    // the modules; the uses are written either way.
    if (this.registry.doesExist('interval', INTERVAL)) this.registry.deleteInterval(INTERVAL);
    await this.task.stop(5_000);
    // The uses noted since the last run: the task refuses new runs once stopped.
    await this.write().catch((err) => logFailure(this.logger, err, 'writing API key uses at shutdown failed'));
  }

  note(keyId: string): void {
    const now = Date.now();
    // A clock stepped back must not replace a later use with an earlier one.
    if ((this.pending.get(keyId) ?? 0) < now) this.pending.set(keyId, now);
  }

  /** Writes the uses noted so far, as the timer does; a failed write keeps them for the next. */
  flush(): Promise<void> {
    return this.task.trigger().catch((err) => logFailure(this.logger, err, 'writing API key uses failed'));
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.uow.run((tx) => this.repo.recordKeyUses(tx.manager, batch));
    } catch (err) {
      for (const [keyId, at] of batch) if ((this.pending.get(keyId) ?? 0) < at) this.pending.set(keyId, at);
      throw err;
    }
  }
}
