import type { MetricsRegistry } from '../observability/metrics/metrics-registry';
import type { WriteQueue } from './write-queue';

/**
 * The write batches of this instance (WRITE_BATCH_MAX): transactions served and the changes they
 * carried (their ratio is the mean batch), those waiting for a lane, and the batches run again one
 * by one after an error. Zero while batching is off.
 */
export function registerWriteBatchMetrics(metrics: MetricsRegistry, queue: Pick<WriteQueue<unknown>, 'served' | 'queued'> | null, reruns: () => number): void {
  metrics.counterOf(
    { name: 'svc_write_batches_total', help: 'Transactions that served batchable writes (WRITE_BATCH_MAX), one write or several.' },
    () => queue?.served.batches ?? 0,
  );
  metrics.counterOf(
    { name: 'svc_write_batched_writes_total', help: 'Batchable writes served; divided by svc_write_batches_total, the mean batch.' },
    () => queue?.served.writes ?? 0,
  );
  metrics.counterOf(
    { name: 'svc_write_batch_reruns_total', help: 'Batches of several writes that failed before their COMMIT and ran each write again alone.' },
    reruns,
  );
  metrics.gauge({
    name: 'svc_write_batch_waiting',
    help: 'Batchable writes waiting for a lane (one of WRITE_BATCH_LANES transactions at once).',
    collect() {
      this.set(queue?.queued ?? 0);
    },
  });
}
