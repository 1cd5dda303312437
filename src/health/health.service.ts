import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { GameReads } from '../common/bulkhead/game-reads';
import { databaseUnavailableCause } from '../common/errors/db-unavailable';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { DbMetrics } from '../db/db-metrics';
import { SchemaWatch } from '../db/schema/schema-watch';
import { DeliveryWorker } from '../webhooks/delivery-worker';
import type { ComponentHealthDto, LoadDto, ReadinessDto } from './health.dto';
import { RELEASE } from '../version';

/** SPEC §4 /healthz: the database ping times out after 2 s. */
export const DB_PING_TIMEOUT_MS = 2_000;

@Injectable()
export class HealthService implements OnModuleDestroy {
  /**
   * Set on SIGINT/SIGTERM, in the first round of shutdown hooks (before any drain starts):
   * readiness fails at once and new requests are refused, while in-flight work finishes.
   */
  private shuttingDown = false;

  constructor(
    private readonly ds: DataSource,
    private readonly worker: DeliveryWorker,
    private readonly db: DbMetrics,
    private readonly bulkheads: GameReads,
    private readonly schema: SchemaWatch,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  onModuleDestroy(): void {
    this.shuttingDown = true;
  }

  get stopping(): boolean {
    return this.shuttingDown;
  }

  async readiness(): Promise<ReadinessDto> {
    const [db, webhookWorker] = await Promise.all([this.pingDb(), Promise.resolve(this.worker.health())]);
    const schemaProblem = this.schema.incompatible;
    const schema: ComponentHealthDto = schemaProblem ? { ok: false, reason: schemaProblem } : { ok: true };
    const report: ReadinessDto = {
      status: db.ok && webhookWorker.ok && schema.ok && !this.shuttingDown ? 'ok' : 'degraded',
      release: RELEASE,
      db,
      webhookWorker,
      schema,
      load: this.load(),
      timestamp: new Date().toISOString(),
    };
    if (this.shuttingDown) report.reason = 'the server is shutting down';
    return report;
  }

  /** Read after the ping, which itself needed a connection: a saturated pool shows in its wait too. */
  private load(): LoadDto {
    const pool = this.db.poolLoad() ?? { inUse: 0, waiting: 0 };
    return {
      saturated: pool.waiting > 0,
      dbConnectionsInUse: pool.inUse,
      dbConnectionsMax: this.settings.databasePoolMax,
      waitingForConnection: pool.waiting,
      expensiveReadsWaiting: this.bulkheads.reads.load().waiting,
    };
  }

  private async pingDb(): Promise<ComponentHealthDto> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ComponentHealthDto>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, reason: `database did not answer within ${DB_PING_TIMEOUT_MS} ms` }),
        DB_PING_TIMEOUT_MS,
      );
    });
    const ping = this.ds
      .query('SELECT 1')
      .then((): ComponentHealthDto => {
        this.db.available();
        return { ok: true };
      })
      .catch((err: Error): ComponentHealthDto => {
        if (databaseUnavailableCause(err)) this.db.unavailable();
        return { ok: false, reason: `database error: ${failureCode(err)}` };
      });
    try {
      return await Promise.race([ping, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * What failed, without the driver's message: /healthz is public, and a message such as
 * "connect ECONNREFUSED 10.0.3.7:5432" would tell anyone where the database lives. The code (an
 * errno such as ECONNREFUSED, or a SQLSTATE such as 57P01) is enough to act on; the details are in
 * the logs of the requests that failed.
 */
export function failureCode(err: Error & { code?: unknown }): string {
  return typeof err.code === 'string' && /^[A-Z0-9_]{1,32}$/.test(err.code) ? err.code : err.name;
}
