import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { PeriodicTask } from '../common/scheduling/periodic-task';

export const WORKER_TICK_MS = 5_000;
/** SPEC §1.7: the in-flight delivery is finished on shutdown, capped at 30 s. */
export const WORKER_DRAIN_CAP_MS = 30_000;
/** SPEC §4 /healthz: the worker is unhealthy when its last completed tick is older than this. */
export const WORKER_STALE_MS = 60_000;

export type WorkerHealth = { ok: true } | { ok: false; reason: string; ageMs?: number };

/**
 * The webhook delivery loop (SPEC §6): one tick every 5 s, never two at once, drained on
 * SIGINT/SIGTERM. Each completed tick is the heartbeat `/healthz` reads.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly task = new PeriodicTask(() => this.deliverDue());

  constructor(
    private readonly registry: SchedulerRegistry,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  get enabled(): boolean {
    return this.settings.webhookWorkerEnabled;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.registry.addInterval('webhook-delivery', setInterval(() => this.tick(), WORKER_TICK_MS));
    this.tick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.enabled) return;
    this.registry.deleteInterval('webhook-delivery');
    if (!(await this.task.stop(WORKER_DRAIN_CAP_MS))) {
      this.logger.warn(`delivery still in flight after ${WORKER_DRAIN_CAP_MS} ms; shutting down anyway`);
    }
  }

  health(now = Date.now()): WorkerHealth {
    if (!this.enabled) return { ok: true };
    const at = this.task.completedAt;
    if (at === null) return { ok: false, reason: 'the webhook worker has not completed a tick yet' };
    const ageMs = now - at;
    if (ageMs > WORKER_STALE_MS) {
      return { ok: false, reason: `the webhook worker's last tick completed ${ageMs} ms ago`, ageMs };
    }
    return { ok: true };
  }

  private tick(): void {
    this.task.trigger().catch((err) => this.logger.error({ err }, 'webhook delivery tick failed'));
  }

  /** Sends the deliveries that are due; the webhooks feature supplies them. */
  private async deliverDue(): Promise<void> {
    return;
  }
}
