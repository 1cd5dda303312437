import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { PeriodicTask } from '../common/scheduling/periodic-task';
import { AUTO_DISABLE_AFTER, retryDelayMs } from './backoff';
import { sendAttempt, type AttemptResult } from './delivery-sender';
import type { ClaimedDelivery } from './webhook-rows';
import { WebhooksRepository } from './webhooks.repository';

export const WORKER_TICK_MS = 5_000;
export const WORKER_BATCH = 50;
/** SPEC §1.7: the in-flight delivery is finished on shutdown, capped at 30 s. */
export const WORKER_DRAIN_CAP_MS = 30_000;
/** SPEC §4 /healthz: the worker is unhealthy when its last completed tick is older than this. */
export const WORKER_STALE_MS = 60_000;

export type WorkerHealth = { ok: true } | { ok: false; reason: string; ageMs?: number };

/**
 * The webhook delivery worker (SPEC §3, §6): every 5 s it claims due attempts in batches of 50
 * (`FOR UPDATE SKIP LOCKED`, so instances never share an attempt), sends a batch concurrently, and
 * claims the next batch at once while batches come back full. Each completed tick is the heartbeat
 * `/healthz` reads; SIGINT/SIGTERM wait for the in-flight batch, at most 30 s.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly task = new PeriodicTask(() => this.deliverDue());
  private stopping = false;

  constructor(
    private readonly registry: SchedulerRegistry,
    private readonly ds: DataSource,
    private readonly repo: WebhooksRepository,
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
    this.stopping = true;
    this.registry.deleteInterval('webhook-delivery');
    if (!(await this.task.stop(WORKER_DRAIN_CAP_MS))) {
      this.logger.warn(`deliveries still in flight after ${WORKER_DRAIN_CAP_MS} ms; their attempts will be retried`);
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

  /** Runs a tick now (also what the timer does); resolves when it completes. */
  tick(): Promise<void> {
    return this.task.trigger().catch((err) => this.logger.error({ err }, 'webhook delivery tick failed'));
  }

  private async deliverDue(): Promise<void> {
    for (;;) {
      const batch = await this.repo.claimDue(this.ds.manager, WORKER_BATCH);
      await Promise.all(batch.map((d) => this.deliver(d)));
      if (batch.length < WORKER_BATCH || this.stopping) return;
    }
  }

  private async deliver(d: ClaimedDelivery): Promise<void> {
    const result: AttemptResult = d.event
      ? await sendAttempt({ deliveryId: d.id, url: d.url, format: d.format, secret: d.secret, event: d.event })
      : { outcome: { kind: 'fail', reason: 'the event is no longer available' }, status: null };
    try {
      if (result.outcome.kind === 'delivered') {
        await this.repo.markDelivered(this.ds.manager, { id: d.id, endpointId: d.endpointId, status: result.status! });
        return;
      }
      const retryInMs = result.outcome.kind === 'retry' ? retryDelayMs(d.attempts) : null;
      await this.repo.markFailed(
        this.ds.manager,
        { id: d.id, endpointId: d.endpointId, status: result.status, error: result.outcome.reason, retryInMs },
        AUTO_DISABLE_AFTER,
      );
    } catch (err) {
      // The claim's lease runs out and the attempt is made again: at-least-once.
      this.logger.error({ err, deliveryId: d.id }, 'could not record a delivery attempt');
    }
  }
}
