import type { MetricsRegistry } from '../../observability/metrics/metrics-registry';
import type { ReplicaRouter } from './replica-router';

/**
 * The replica's families, kept as plain numbers by the router and read at scrape time: where the
 * lag-tolerant reads went (and why the primary served them), the time reads waited for a token,
 * and the replica's lag as last measured.
 */
export function registerReplicaMetrics(metrics: MetricsRegistry, router: ReplicaRouter): void {
  metrics.counterOf(
    {
      name: 'svc_db_replica_reads_total',
      help: 'Reads of the routes the replica may serve, by outcome: replica (served by it), primary_lagging (it was more than READ_REPLICA_MAX_LAG_MS behind), primary_token_wait (it had not replayed the consistency token within READ_REPLICA_WAIT_MS), primary_replica_unreachable.',
      labelNames: ['outcome'] as const,
    },
    () => router.outcomes,
  );
  metrics.counterOf(
    {
      name: 'svc_db_replica_token_wait_seconds_total',
      help: 'Time reads carrying a consistency token waited for the replica to replay it.',
    },
    () => router.tokenWaitSeconds,
  );
  metrics.gauge({
    name: 'svc_db_replica_lag_seconds',
    help: 'How far behind the primary the replica was at its last measurement, plus that measurement\'s age (measured at most every 100 ms, while reads come).',
    collect() {
      const lag = router.lagMs();
      this.set(lag === null ? Number.NaN : lag / 1000);
    },
  });
}
