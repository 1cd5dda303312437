import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource, type EntityManager } from 'typeorm';
import { logFailure } from '../common/errors/log-failure';
import { PeriodicTask } from '../common/scheduling/periodic-task';
import { sqlRows } from '../db/sql';
import { transaction } from '../db/transaction';
import { GroupsRepository } from '../groups/groups.repository';
import { RESTORE_WINDOW_DAYS } from '../groups/groups.service';

export const SWEEP_EVERY_MS = 60 * 60_000;
/** Published events are kept this long for diagnosis, then removed. */
export const OUTBOX_RETENTION_DAYS = 7;
/** Only one instance sweeps at a time: the others skip the tick (transaction-scoped lock). */
const SWEEPER_LOCK = 7_310_422_002;

export interface SweepResult {
  swept: boolean;
  groupsRemoved: number;
  outboxEventsRemoved: number;
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
    return transaction(this.ds, async (m) => {
      const [{ locked }] = await m.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [SWEEPER_LOCK]);
      if (!locked) return { swept: false, groupsRemoved: 0, outboxEventsRemoved: 0 };
      // SPEC §3: soft-deleted groups past the restore window go, with everything that cascades.
      const groupsRemoved = await this.groups.purgeSoftDeleted(m, RESTORE_WINDOW_DAYS);
      const outboxEventsRemoved = await removeOldOutboxEvents(m);
      if (groupsRemoved || outboxEventsRemoved) {
        this.logger.log(`removed ${groupsRemoved} soft-deleted groups and ${outboxEventsRemoved} outbox events`);
      }
      return { swept: true, groupsRemoved, outboxEventsRemoved };
    });
  }
}

async function removeOldOutboxEvents(m: EntityManager): Promise<number> {
  const rows = await sqlRows(
    m,
    `DELETE FROM outbox_events WHERE created_at < now() - make_interval(days => $1) RETURNING 1`,
    [OUTBOX_RETENTION_DAYS],
  );
  return rows.length;
}
