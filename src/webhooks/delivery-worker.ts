import { Inject, Injectable, Logger, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { logFailure } from '../common/errors/log-failure';
import { PeriodicTask } from '../common/scheduling/periodic-task';
import { PgListener } from '../db/pg-listener';
import type { Tracing } from '../observability/tracing/tracing';
import { TRACING } from '../observability/tracing/tracing.module';
import type { AttemptSpans } from './attempt-spans';
import { AUTO_DISABLE_AFTER, retryDelayMs } from './backoff';
import { DELIVERIES_CHANNEL } from './delivery-channel';
import { DeliverySender, type AttemptResult } from './delivery-sender';
import { DeliveryWindow, WORKER_BATCH } from './delivery-window';
import { ResultRecorder } from './result-recorder';
import type { AttemptRecord, ClaimedDelivery } from './webhook-rows';
import { completedBatches, markLost, movesPosition } from './position-batches';
import { PastLeaseRepository } from './past-lease.repository';
import { PositionsRepository } from './positions.repository';
import { WebhooksRepository } from './webhooks.repository';

export const WORKER_TICK_MS = 5_000;
/** The window is topped up once this many slots are free, or after this long with any free. */
const CLAIM_AT_LEAST = 10;
const TOP_UP_MS = 250;
/**
 * Claims start at least this far apart, whatever asks for one (a wake, a finished send, the
 * top-up): under load every commit wakes the worker and every send that finishes frees a slot,
 * and a claim each time costs PostgreSQL more than the events it takes (a hot group's joins: 0.13
 * claims a request, against 0.05-0.09 with the gap). A delivery starts at most this much later.
 */
export const CLAIM_GAP_MS = 20;
/**
 * After a claim that saw events waiting above the feed's horizon (behind a transaction still open),
 * the worker looks again this long after, doubling while they wait, up to HELD_RETRY_MAX_MS: the
 * transaction holding them may end without a commit that announces them.
 */
const HELD_RETRY_MS = 25;
const HELD_RETRY_MAX_MS = 1_000;
/** Sends run ahead of the recording of their results by at most this many. */
const UNRECORDED_MAX = 2 * WORKER_BATCH;
/** SPEC §1.7: the in-flight deliveries are finished on shutdown, capped at 30 s. */
export const WORKER_DRAIN_CAP_MS = 30_000;
/** SPEC §4 /healthz: the worker is unhealthy when it has shown no progress for this long. */
export const WORKER_STALE_MS = 60_000;

export type WorkerHealth = { ok: true } | { ok: false; reason: string; ageMs?: number };

/**
 * The webhook delivery worker (SPEC §3, §6). Every 5 s, and whenever a commit announces new
 * deliveries, it claims due attempts (`FOR UPDATE SKIP LOCKED`, so instances never share an
 * attempt) and keeps up to 50 in flight (see DeliveryWindow for the per-endpoint shares): as sends
 * finish it claims more, so a backlog drains at the network's pace; where another worker's batch
 * holds an endpoint's position and its events wait, it sends the events after that batch
 * (PastLeaseRepository). Results are recorded in batches (ResultRecorder); a tick ends only once
 * every result it produced is written. Each claim is a heartbeat for `/healthz`; SIGINT/SIGTERM
 * wait for the attempts in flight and the writing of their results, at most 30 s.
 */
@Injectable()
export class DeliveryWorker implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly task = new PeriodicTask(() => this.deliverDue());
  private stopping = false;
  private wakeRequested = false;
  /** The next look for events held above the horizon, and how long after the last one it comes. */
  private heldRetry?: NodeJS.Timeout;
  private heldDelayMs = HELD_RETRY_MS;
  /** Resolved by a wake, a finished send or a written result: the running tick looks again. */
  private changed: { promise: Promise<void>; resolve: () => void } = deferred();
  private lastProgressAt: number | null = null;
  /** Attempts made by this instance, by outcome (for the metrics). */
  readonly outcomes: Record<AttemptRecord['outcome'], number> = { delivered: 0, retry: 0, failed: 0 };
  private lastClaimAt = 0;
  private readonly recorder = new ResultRecorder(
    (results) => this.repo.recordResults(this.ds.manager, results, AUTO_DISABLE_AFTER, completedBatches(results)),
    // The claims' leases run out and the attempts are made again: at-least-once. A position whose
    // batch lost a result stays where it is until its lease runs out.
    (err, results) => {
      markLost(results);
      logFailure(this.logger, err, 'could not record delivery attempts', { deliveryIds: results.map((r) => r.id) });
    },
  );

  /** One span per attempt, when traces are on. */
  private readonly attemptSpans: AttemptSpans | null;

  constructor(
    private readonly registry: SchedulerRegistry,
    private readonly ds: DataSource,
    private readonly repo: WebhooksRepository,
    private readonly listener: PgListener,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly sender: DeliverySender,
    private readonly positions: PositionsRepository,
    private readonly pastLease: PastLeaseRepository,
    @Optional() @Inject(TRACING) tracing: Tracing | null = null,
  ) {
    // Loaded only when traces are on, like the rest of the OpenTelemetry code (see TracingModule).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.attemptSpans = tracing && new (require('./attempt-spans') as typeof import('./attempt-spans')).AttemptSpans(tracing);
  }

  get enabled(): boolean {
    return this.settings.webhookWorkerEnabled;
  }

  onModuleInit(): void {
    if (this.enabled) this.listener.subscribe(DELIVERIES_CHANNEL, () => this.wake());
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.registry.addInterval('webhook-delivery', setInterval(() => void this.run(), WORKER_TICK_MS));
    void this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (!this.enabled) return;
    clearTimeout(this.heldRetry);
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

  /**
   * Runs a tick by hand (what tests do); resolves when a tick that began after this
   * call completes, so it sees every delivery committed before it. On an instance whose worker is
   * off, these are its only ticks.
   */
  tick(): Promise<void> {
    return this.logged(this.task.triggerAfter());
  }

  /** The timer's tick: none when one is running, which goes on claiming until it finds nothing. */
  private run(): Promise<void> {
    return this.logged(this.task.trigger());
  }

  private logged(tick: Promise<void>): Promise<void> {
    return tick.catch((err) => logFailure(this.logger, err, 'webhook delivery tick failed'));
  }

  /** A commit enqueued deliveries: start now, or go round once more if a tick is running. */
  private wake(): void {
    if (this.stopping) return;
    if (this.task.running) {
      this.wakeRequested = true;
      this.changed.resolve();
    } else void this.run();
  }

  /** Events wait above the horizon: look again soon, later each time they still wait. */
  private lookAgainForHeld(held: boolean): void {
    if (!held) {
      this.heldDelayMs = HELD_RETRY_MS;
      return;
    }
    // A worker that is off ticks only when asked: a tick by hand arms nothing.
    if (this.heldRetry || this.stopping || !this.enabled) return;
    this.heldRetry = setTimeout(() => {
      this.heldRetry = undefined;
      this.wake();
    }, this.heldDelayMs);
    this.heldDelayMs = Math.min(2 * this.heldDelayMs, HELD_RETRY_MAX_MS);
  }

  /**
   * One tick: claim into free slots, and claim again as sends finish, until a claim finds nothing
   * (the queue is empty, or every due endpoint has its share in flight) and every attempt claimed
   * is sent and recorded. A wake during the tick makes it go round once more. A slot is free again
   * once its send has finished; its result is recorded meanwhile, and claims wait while more than
   * UNRECORDED_MAX results are still to be written.
   */
  private async deliverDue(): Promise<void> {
    const window = new DeliveryWindow();
    let unrecorded = 0;
    // Slots freed, endpoints that fell below their share, and batches whose results moved their
    // position, since the tick began; and the counts when the last claim began, if it found nothing.
    let freed = 0;
    let sharesFreed = 0;
    let batchesDone = 0;
    let emptyClaim: { freed: number; sharesFreed: number; batchesDone: number } | null = null;
    // The endpoints whose positions this worker's batches lease, with their attempts not yet recorded.
    const holding = new Map<string, number>();
    // A claim that found nothing is taken as the answer until a share or CLAIM_AT_LEAST slots
    // have been freed since it began (sends finishing while it ran count too), or a batch's
    // position has moved: until then the position's lease kept its next events from that claim.
    const foundNothing = () =>
      emptyClaim !== null &&
      emptyClaim.sharesFreed === sharesFreed &&
      emptyClaim.batchesDone === batchesDone &&
      freed - emptyClaim.freed < CLAIM_AT_LEAST;
    const attempt = async (d: ClaimedDelivery) => {
      window.add(d.endpointId);
      if (d.fresh) holding.set(d.endpointId, (holding.get(d.endpointId) ?? 0) + 1);
      const span = this.attemptSpans?.start(d);
      const result = await this.send(d, span?.headers);
      const record = attemptRecord(d, result);
      span?.end(record);
      this.outcomes[record.outcome]++;
      freed++;
      if (window.remove(d.endpointId)) sharesFreed++;
      unrecorded++;
      this.changed.resolve();
      await this.recorder.record(record);
      if (d.fresh && movesPosition(d.fresh.batch)) batchesDone++;
      if (d.fresh) decrement(holding, d.endpointId);
      unrecorded--;
      this.changed.resolve();
    };
    for (;;) {
      this.changed = deferred();
      // Claims are batched (a claim per finished send would cost more than the sends). After a
      // claim that found nothing, only a wake, the top-up interval while sends are out, or slots
      // freed since claim again.
      const sinceClaim = Date.now() - this.lastClaimAt;
      const claimWanted =
        window.hasRoom &&
        unrecorded < UNRECORDED_MAX &&
        !this.stopping &&
        (this.wakeRequested ||
          (!foundNothing() && (window.inFlight === 0 || window.free >= CLAIM_AT_LEAST)) ||
          (window.inFlight > 0 && sinceClaim >= TOP_UP_MS));
      if (claimWanted && sinceClaim >= CLAIM_GAP_MS) {
        this.lastClaimAt = Date.now();
        this.wakeRequested = false;
        const before = { freed, sharesFreed, batchesDone };
        // With nothing in flight and no endpoint enabled anywhere, every claim below would find
        // nothing (each reads enabled endpoints only): one look at the endpoints answers that, where
        // planning the claims cost PostgreSQL 10-28 ms a tick under load, every 5 s on every
        // instance of a deployment that sends no webhook.
        if (window.inFlight === 0 && !(await this.repo.anyEndpointEnabled(this.ds.manager))) {
          this.lookAgainForHeld(false);
          this.lastProgressAt = Date.now();
          emptyClaim = before;
          continue;
        }
        // Retries (and rows 1.8.0's commits wrote) first, then the events after the endpoints'
        // positions in the room that is left: each send takes its slot as it starts.
        const due = await this.repo.claimDue(this.ds.manager, window.room());
        for (const d of due) void attempt(d);
        const fresh = window.hasRoom
          ? await this.positions.claim(this.ds, window.room(), this.settings.eventRetentionDays, [...holding.keys()])
          : { deliveries: [], more: false, held: false, leased: false };
        this.lookAgainForHeld(fresh.held);
        for (const d of fresh.deliveries) void attempt(d);
        // Then, where other workers' leases hold positions, the events past their batches.
        const past =
          fresh.leased && window.hasRoom
            ? await this.pastLease.claim(this.ds, window.room(), [...holding.keys()], this.settings.eventRetentionDays)
            : [];
        for (const d of past) void attempt(d);
        this.lastProgressAt = Date.now();
        emptyClaim = due.length === 0 && fresh.deliveries.length === 0 && past.length === 0 && !fresh.more ? before : null;
        continue;
      }
      // Stopping, a wake no longer counts: no claim follows it, and waiting on it would hold the
      // shutdown to its cap.
      if (!window.inFlight && !unrecorded && (this.stopping || (foundNothing() && !this.wakeRequested))) return;
      // A send or a record finishing, a wake, or the top-up interval (so slow receivers never keep
      // due attempts of others waiting); a claim held back by the gap, once it has passed.
      const t = setTimeout(this.changed.resolve, claimWanted ? CLAIM_GAP_MS - sinceClaim : TOP_UP_MS);
      await this.changed.promise;
      clearTimeout(t);
      this.lastProgressAt = Date.now();
    }
  }

  /** Sends one attempt, with its trace context when traced; never rejects. */
  private async send(d: ClaimedDelivery, traceHeaders?: Record<string, string>): Promise<AttemptResult> {
    return d.event
      ? this.sender.send({ deliveryId: d.id, url: d.url, format: d.format, secret: d.secret, previousSecret: d.previousSecret, event: d.event, traceHeaders })
      : { outcome: { kind: 'fail', reason: 'the event is no longer available' }, status: null, durationMs: 0 };
  }
}

function attemptRecord(d: ClaimedDelivery, { outcome, status, durationMs }: AttemptResult): AttemptRecord {
  const base = { id: d.id, attempts: d.attempts, status, durationMs, ...(d.fresh ? { fresh: { ...d.fresh, endpointId: d.endpointId } } : {}) };
  if (outcome.kind === 'delivered') return { ...base, outcome: 'delivered', error: null, retryInMs: null };
  const retryInMs = outcome.kind === 'retry' ? retryDelayMs(d.attempts) : null;
  return { ...base, outcome: retryInMs === null ? 'failed' : 'retry', error: outcome.reason, retryInMs };
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = counts.get(key) ?? 0;
  if (n <= 1) counts.delete(key);
  else counts.set(key, n - 1);
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
