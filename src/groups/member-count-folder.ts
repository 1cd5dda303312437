import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { logFailure } from '../common/errors/log-failure';
import { PeriodicTask } from '../common/scheduling/periodic-task';
import { sqlRows } from '../db/sql';
import { transaction } from '../db/transaction';

export const FOLD_EVERY_MS = 1000;
/** Groups folded per statement. */
export const FOLD_BATCH_GROUPS = 200;
/**
 * How long a fold waits for a write to a group it folds (settings, deletion: they hold the row;
 * member writes do not). Past it the fold gives way and the next tick tries again: a write is
 * never held back longer than this by a fold.
 */
const FOLD_LOCK_TIMEOUT = '100ms';
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Folds the member counter's deltas into each group's counter (migration MemberCountDeltas), so
 * that reading a group's memberCount sums only the last second's joins and leaves. Each batch is
 * one statement: it locks its groups, deletes the deltas it sees and adds their sum to the
 * counters, so every snapshot sees each delta exactly once, in the table or in the counter.
 * Every instance folds; a batch locks its groups in id order, so two never deadlock.
 */
@Injectable()
export class MemberCountFolder implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(MemberCountFolder.name);
  private readonly task = new PeriodicTask(async () => {
    await this.fold();
  });

  constructor(
    private readonly ds: DataSource,
    private readonly registry: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const run = () => this.task.trigger().catch((err) => logFailure(this.logger, err, 'folding member counts failed'));
    this.registry.addInterval('member-count-folder', setInterval(run, FOLD_EVERY_MS));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.registry.deleteInterval('member-count-folder');
    await this.task.stop(5_000);
  }

  /** Folds until no delta is left or a group stays busy; returns the deltas folded. */
  async fold(): Promise<number> {
    let folded = 0;
    for (;;) {
      const batch = await this.foldBatch();
      if (batch === null) return folded;
      folded += batch.deltas;
      if (batch.groups < FOLD_BATCH_GROUPS) return folded;
    }
  }

  /** One batch; null when a group's lock was not had in time. */
  private async foldBatch(): Promise<{ groups: number; deltas: number } | null> {
    try {
      // Not ds.transaction: a connection lost between its statements must fail as the database being
      // away (a warn line), not as TypeORM's "runner already released" (an error with a stack).
      return await transaction(this.ds, async (m) => {
        await m.query(`SET LOCAL lock_timeout = '${FOLD_LOCK_TIMEOUT}'`);
        const [row] = await sqlRows<{ groups: number; deltas: number }>(
          m,
          // Deltas whose group is gone (purged while they waited) are dropped with the batch.
          `WITH grp AS (
             SELECT g.id FROM groups g
             WHERE g.id IN (SELECT DISTINCT d.group_id FROM group_member_count_deltas d LIMIT $1)
             ORDER BY g.id
             FOR NO KEY UPDATE OF g
           ), gone AS (
             DELETE FROM group_member_count_deltas d
             WHERE d.group_id IN (SELECT id FROM grp) OR NOT EXISTS (SELECT 1 FROM groups g WHERE g.id = d.group_id)
             RETURNING d.group_id, d.delta
           ), sums AS (
             SELECT group_id, sum(delta)::int AS n FROM gone GROUP BY group_id
           ), folded AS (
             UPDATE groups g SET active_member_count = g.active_member_count + s.n
             FROM sums s WHERE g.id = s.group_id AND s.n <> 0
             RETURNING 1
           )
           SELECT (SELECT count(*) FROM grp)::int AS groups, (SELECT count(*) FROM gone)::int AS deltas`,
          [FOLD_BATCH_GROUPS],
        );
        return row;
      });
    } catch (err) {
      const e = err as { code?: string; driverError?: { code?: string } };
      if ((e.code ?? e.driverError?.code) === LOCK_NOT_AVAILABLE) return null;
      throw err;
    }
  }
}
