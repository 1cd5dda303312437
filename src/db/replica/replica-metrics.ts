import type { MetricsRegistry } from '../../observability/metrics/metrics-registry';
import type { ReplicaRouter } from './replica-router';

/**
 * The replica's families, kept as plain numbers by the router and read at scrape time: where the
 * lag-tolerant reads went (and why the primary served them), the time reads waited for a token,
 * and the replica's lag as last measured (NaN before the first measurement, or without a replica).
 * Registered with or without one, so that dashboards and alerts find the families either way.
 */
export function registerReplicaMetrics(metrics: MetricsRegistry, router: ReplicaRouter | null): void {
  const none = { replica: 0, primary_lagging: 0, primary_token_wait: 0, primary_unreadable_token: 0, primary_replica_unreachable: 0 };
  metrics.counterOf(
    {
      name: 'svc_db_replica_reads_total',
      help: 'Reads of the routes the replica may serve, by outcome: replica (served by it), primary_lagging (it was more than READ_REPLICA_MAX_LAG_MS behind), primary_token_wait (it had not replayed the consistency token within READ_REPLICA_WAIT_MS), primary_unreadable_token (the token was sealed under another key or by an earlier release), primary_replica_unreachable.',
      labelNames: ['outcome'] as const,
    },
    () => router?.outcomes ?? none,
  );
  metrics.counterOf(
    {
      name: 'svc_db_replica_token_wait_seconds_total',
      help: 'Time reads carrying a consistency token waited for the replica to replay it.',
    },
    () => router?.tokenWaitSeconds ?? 0,
  );
  metrics.gauge({
    name: 'svc_db_replica_lag_seconds',
    help: 'How far behind the primary the replica was at its last measurement, plus that measurement\'s age (measured at most every 100 ms, while reads come).',
    collect() {
      const lag = router?.lagMs() ?? null;
      this.set(lag === null ? Number.NaN : lag / 1000);
    },
  });
}
