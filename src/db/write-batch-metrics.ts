import type { MetricsRegistry } from '../observability/metrics/metrics-registry';
import type { SharedCount } from './shared-write';
import type { WriteQueue } from './write-queue';

/**
 * The write batches of this instance (WRITE_BATCH_MAX): transactions served and the changes they
 * carried (their ratio is the mean batch), those waiting for a lane, the batches run again one by
 * one after an error, and the statements that carried several writes' first statements. Zero while
 * batching is off.
 */
export function registerWriteBatchMetrics(
  metrics: MetricsRegistry,
  queue: Pick<WriteQueue<unknown>, 'served' | 'queued'> | null,
  batches: { readonly reruns: number; readonly shared: SharedCount },
): void {
  metrics.counterOf(
    { name: 'svc_write_batches_total', help: 'Transactions that served writes of the write queue (WRITE_BATCH_MAX: joins, leaves, and member and player writes), one write or several.' },
    () => queue?.served.batches ?? 0,
  );
  metrics.counterOf(
    { name: 'svc_write_batched_writes_total', help: 'Batchable writes served; divided by svc_write_batches_total, the mean batch.' },
    () => queue?.served.writes ?? 0,
  );
  metrics.counterOf(
    { name: 'svc_write_batch_reruns_total', help: 'Batches of several writes that failed before their COMMIT and ran each write again alone.' },
    () => batches.reruns,
  );
  metrics.counterOf(
    { name: 'svc_write_shared_statements_total', help: 'Statements that carried the first statements of several writes of a batch (one per kind and run of writes that name no group or player in common, joins of one group without a cap excepted).' },
    () => batches.shared.statements,
  );
  metrics.counterOf(
    { name: 'svc_write_shared_statement_writes_total', help: 'Writes whose first statement went in a shared one; divided by svc_write_shared_statements_total, the writes a shared statement carries.' },
    () => batches.shared.writes,
  );
  metrics.gauge({
    name: 'svc_write_batch_waiting',
    help: 'Batchable writes waiting for a lane (one of WRITE_BATCH_LANES transactions at once).',
    collect() {
      this.set(queue?.queued ?? 0);
    },
  });
}
