import type { EventEmitter } from 'node:events';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource, type QueryRunner } from 'typeorm';
import { logFailure } from '../common/errors/log-failure';
import { PeriodicTask } from '../common/scheduling/periodic-task';
import { SETTINGS } from '../config/settings.module';
import type { Settings } from '../config/settings';
import { ConnectionLoss } from '../db/transaction';
import { GroupsRepository } from '../groups/groups.repository';
import { RESTORE_WINDOW_DAYS } from '../groups/groups.service';
import { expireJournalEvents } from './journal-expiry';
import { removeExpiredNotifications, removeNotificationsBeyondCap } from '../notifications/notification-retention';
import { clearExpiredPreviousSecrets, removeExpiredDeliveries } from '../webhooks/webhook-retention';

export const SWEEP_EVERY_MS = 60 * 60_000;
/** Only one instance sweeps at a time: the others skip the tick (session-scoped lock). */
const SWEEPER_LOCK = 7_310_422_002;
/** Events removed per statement: each batch commits on its own, so no lock is held for long. */
export const EVENT_SWEEP_BATCH = 5000;

export interface SweepResult {
  swept: boolean;
  groupsRemoved: number;
  eventsExpired: number;
  webhookDeliveriesRemoved: number;
  previousSecretsCleared: number;
  /** Players' notifications past their retention or beyond a player's newest 1,000 (EXTENSIONS X9). */
  notificationsRemoved: number;
}

/**
 * The hourly maintenance sweep (SPEC §1.7). It runs on every instance's clock but under an
 * advisory lock, so several instances never sweep concurrently.
 */
@Injectable()
export class SweeperService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(SweeperService.name);
  private readonly task = new PeriodicTask(async () => {
    await this.sweep();
  });

  constructor(
    private readonly ds: DataSource,
    private readonly registry: SchedulerRegistry,
    private readonly groups: GroupsRepository,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  onApplicationBootstrap(): void {
    const run = () => this.task.trigger().catch((err) => logFailure(this.logger, err, 'sweep failed'));
    this.registry.addInterval('sweeper', setInterval(run, SWEEP_EVERY_MS));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.registry.deleteInterval('sweeper');
    await this.task.stop(30_000);
  }

  /** One sweep, unless another instance holds the lock. */
  async sweep(): Promise<SweepResult> {
    // The lock lives on one connection for the whole sweep, across the batches' own transactions.
    const runner = this.ds.createQueryRunner() as QueryRunner & { releasePostgresConnection(err?: Error): Promise<void> };
    const loss = new ConnectionLoss('the sweep');
    loss.watch((await runner.connect()) as EventEmitter);
    let unlockFailure: Error | undefined;
    try {
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [SWEEPER_LOCK]);
      if (!locked) return { swept: false, groupsRemoved: 0, eventsExpired: 0, webhookDeliveriesRemoved: 0, previousSecretsCleared: 0, notificationsRemoved: 0 };
      try {
        // SPEC §3: soft-deleted groups past the restore window go, with everything that cascades.
        const groupsRemoved = await runner.manager.transaction((m) => this.groups.purgeSoftDeleted(m, RESTORE_WINDOW_DAYS));
        // The delivery log is kept as long as the events it delivered, and goes first so that a
        // listed delivery still names its event's type.
        const { removed: webhookDeliveriesRemoved } = await removeExpiredDeliveries(runner.manager, this.settings.eventRetentionDays);
        const { expired: eventsExpired } = await expireJournalEvents(runner.manager, this.settings.eventRetentionDays, EVENT_SWEEP_BATCH);
        const previousSecretsCleared = await clearExpiredPreviousSecrets(runner.manager);
        const notificationsRemoved =
          (await removeExpiredNotifications(runner.manager, this.settings.notificationRetentionDays)) + (await removeNotificationsBeyondCap(runner.manager));
        if (groupsRemoved || eventsExpired || webhookDeliveriesRemoved || notificationsRemoved) {
          this.logger.log(
            `removed ${groupsRemoved} soft-deleted groups, ${eventsExpired} expired events, ${webhookDeliveriesRemoved} expired webhook deliveries and ${notificationsRemoved} notifications`,
          );
        }
        return { swept: true, groupsRemoved, eventsExpired, webhookDeliveriesRemoved, previousSecretsCleared, notificationsRemoved };
      } finally {
        // A connection that died took its session lock with it; the error that killed it is the
        // sweep's failure, not this unlock's. One that lives but cannot unlock is closed below
        // instead of pooled, so the lock never outlives the sweep.
        if (!runner.isReleased) await runner.query('SELECT pg_advisory_unlock($1)', [SWEEPER_LOCK]).catch((err: Error) => (unlockFailure = err));
      }
    } catch (err) {
      throw loss.reason(err);
    } finally {
      loss.stop();
      await runner.releasePostgresConnection(unlockFailure);
    }
  }
}
