import { Injectable } from '@nestjs/common';
import { DbMetrics } from '../db/db-metrics';
import { MetricsRegistry } from '../observability/metrics/metrics-registry';
import { AUTO_DISABLE_AFTER } from './backoff';
import { DeliveryWorker } from './delivery-worker';
import { WEBHOOK_BACKLOG_SQL } from './webhooks.repository';

interface Backlog {
  due: number;
  waiting: number;
  muted: number;
  oldest: number;
  disabledByFailures: number;
  disabledByOperator: number;
}

/**
 * The webhooks' families: the backlog and the disabled endpoints (one query at scrape time, shared
 * by the three gauges and cached briefly), and this instance's attempts by outcome.
 */
@Injectable()
export class WebhookMetrics {
  constructor(metrics: MetricsRegistry, worker: DeliveryWorker, db: DbMetrics) {
    const backlog = db.scrapeQuery<Backlog>(WEBHOOK_BACKLOG_SQL);
    const read = async () => (await backlog.get())?.[0];
    metrics.gauge({
      name: 'svc_webhook_deliveries_pending',
      help: 'Deliveries not yet delivered or failed, of every game, by state: due (to send now), waiting (for a retry\'s backoff, or in flight), muted (their endpoint is disabled).',
      labelNames: ['state'] as const,
      async collect() {
        const b = await read();
        this.reset();
        if (!b) return;
        this.set({ state: 'due' }, b.due);
        this.set({ state: 'waiting' }, b.waiting);
        this.set({ state: 'muted' }, b.muted);
      },
    });
    metrics.gauge({
      name: 'svc_webhook_oldest_pending_age_seconds',
      help: 'How long the oldest due delivery of an enabled endpoint has waited past its due time (its creation, for a first attempt); 0 when none is due. NaN while it cannot be measured.',
      async collect() {
        const b = await read();
        this.set(b ? b.oldest : Number.NaN);
      },
    });
    metrics.gauge({
      name: 'svc_webhook_endpoints_disabled',
      help: `Webhook endpoints of every game that are disabled, by reason: failures (${AUTO_DISABLE_AFTER} consecutive failed attempts), operator (disabled through the API). Their deliveries wait, muted.`,
      labelNames: ['reason'] as const,
      async collect() {
        const b = await read();
        this.set({ reason: 'failures' }, b ? b.disabledByFailures : Number.NaN);
        this.set({ reason: 'operator' }, b ? b.disabledByOperator : Number.NaN);
      },
    });
    metrics.counterOf(
      {
        name: 'svc_webhook_attempts_total',
        help: 'Delivery attempts this instance made, by outcome: delivered (2xx), retry (failed, another attempt is scheduled), failed (failed for good: a 4xx, or the last attempt).',
        labelNames: ['outcome'] as const,
      },
      () => worker.outcomes,
    );
  }
}
