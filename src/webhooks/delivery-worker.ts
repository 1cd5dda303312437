import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { PeriodicTask } from '../common/scheduling/periodic-task';
import { PgListener } from '../db/pg-listener';
import { AUTO_DISABLE_AFTER, retryDelayMs } from './backoff';
import { DELIVERIES_CHANNEL } from './delivery-channel';
import { sendAttempt, type AttemptResult } from './delivery-sender';
import type { ClaimedDelivery } from './webhook-rows';
import { WebhooksRepository } from './webhooks.repository';

export const WORKER_TICK_MS = 5_000;
/** SPEC §1.7: attempts are claimed in batches of 50; at most this many are in flight. */
export const WORKER_BATCH = 50;
/** The window is topped up once this many slots are free, or after this long with any free. */
const CLAIM_AT_LEAST = 10;
const TOP_UP_MS = 250;
/** One endpoint's share of the window, so a slow receiver never holds up the others. */
export const PER_ENDPOINT_IN_FLIGHT = 10;
/** SPEC §1.7: the in-flight deliveries are finished on shutdown, capped at 30 s. */
export const WORKER_DRAIN_CAP_MS = 30_000;
/** SPEC §4 /healthz: the worker is unhealthy when it has shown no progress for this long. */
export const WORKER_STALE_MS = 60_000;

export type WorkerHealth = { ok: true } | { ok: false; reason: string; ageMs?: number };

/**
 * The webhook delivery worker (SPEC §3, §6). Every 5 s, and whenever a commit announces new
 * deliveries, it claims due attempts (`FOR UPDATE SKIP LOCKED`, so instances never share an
 * attempt) and keeps up to 50 in flight: as sends finish it claims more, so a backlog drains at the
 * network's pace. Each claim is a heartbeat for `/healthz`; SIGINT/SIGTERM wait for the attempts in
 * flight, at most 30 s.
 */
@Injectable()
export class DeliveryWorker implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly task = new PeriodicTask(() => this.deliverDue());
  private stopping = false;
  private wakeRequested = false;
  /** Resolved by a wake, so a tick waiting on slow sends tops up its free slots at once. */
  private wakeSignal: { promise: Promise<void>; resolve: () => void } = deferred();
  private lastProgressAt: number | null = null;
  private lastClaimAt = 0;

  constructor(
    private readonly registry: SchedulerRegistry,
    private readonly ds: DataSource,
    private readonly repo: WebhooksRepository,
    private readonly listener: PgListener,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  get enabled(): boolean {
    return this.settings.webhookWorkerEnabled;
  }

  onModuleInit(): void {
    if (this.enabled) this.listener.subscribe(DELIVERIES_CHANNEL, () => this.wake());
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.registry.addInterval('webhook-delivery', setInterval(() => void this.tick(), WORKER_TICK_MS));
    void this.tick();
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
    const at = Math.max(this.task.completedAt ?? 0, this.lastProgressAt ?? 0);
    if (!at) return { ok: false, reason: 'the webhook worker has not completed a tick yet' };
    const ageMs = now - at;
    if (ageMs > WORKER_STALE_MS) {
      return { ok: false, reason: `the webhook worker has shown no progress for ${ageMs} ms`, ageMs };
    }
    return { ok: true };
  }

  /** Runs a tick now (also what the timer does); resolves when it completes. */
  tick(): Promise<void> {
    return this.task.trigger().catch((err) => this.logger.error({ err }, 'webhook delivery tick failed'));
  }

  /** A commit enqueued deliveries: start now, or go round once more if a tick is running. */
  private wake(): void {
    if (this.stopping) return;
    if (this.task.running) {
      this.wakeRequested = true;
      this.wakeSignal.resolve();
    } else void this.tick();
  }

  /**
   * One tick: claim into free slots, and claim again whenever a send finishes, until a claim finds
   * nothing (the queue is empty, or every due endpoint has its share in flight) and the window is
   * empty. A wake during the tick makes it go round once more.
   */
  private async deliverDue(): Promise<void> {
    const inFlight = new Map<Promise<void>, string>();
    let lastFoundNothing = false;
    for (;;) {
      let claimed = 0;
      const free = WORKER_BATCH - inFlight.size;
      // Claims are batched (a claim per finished send would cost more than the sends), and after a
      // claim that found nothing only a wake or the top-up interval claims again.
      const toppingUp =
        free > 0 &&
        (!inFlight.size ||
          this.wakeRequested ||
          (free >= CLAIM_AT_LEAST && !lastFoundNothing) ||
          Date.now() - this.lastClaimAt >= TOP_UP_MS);
      if (toppingUp && !this.stopping) {
        this.lastClaimAt = Date.now();
        this.wakeRequested = false;
        const batch = await this.repo.claimDue(this.ds.manager, free, PER_ENDPOINT_IN_FLIGHT, busyEndpoints(inFlight));
        this.lastProgressAt = Date.now();
        claimed = batch.length;
        lastFoundNothing = claimed === 0;
        for (const d of batch) {
          const send: Promise<void> = this.deliver(d).finally(() => inFlight.delete(send));
          inFlight.set(send, d.endpointId);
        }
      }
      if (!inFlight.size) {
        if ((claimed > 0 || this.wakeRequested) && !this.stopping) continue;
        return;
      }
      // A send finishing frees a slot; so does time passing for free slots already open (a wake,
      // or the top-up interval), so slow receivers never keep due attempts of others waiting.
      this.wakeSignal = deferred();
      const timer = deferred();
      const t = setTimeout(timer.resolve, TOP_UP_MS);
      await Promise.race([...inFlight.keys(), this.wakeSignal.promise, timer.promise]);
      clearTimeout(t);
      this.lastProgressAt = Date.now();
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

/** Endpoints already holding their share of the window. */
function busyEndpoints(inFlight: Map<Promise<void>, string>): string[] {
  const counts = new Map<string, number>();
  for (const endpointId of inFlight.values()) counts.set(endpointId, (counts.get(endpointId) ?? 0) + 1);
  return [...counts].filter(([, n]) => n >= PER_ENDPOINT_IN_FLIGHT).map(([id]) => id);
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
