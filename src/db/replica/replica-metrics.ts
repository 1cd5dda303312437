import type { MetricsRegistry } from '../../observability/metrics/metrics-registry';
import type { ReplicaRouter } from './replica-router';

/**
 * A scrape measures the lag itself unless reads have within this long (the age of the measurement
 * counts as lag); it waits for that at most this long, as DbMetrics' scrape-time queries do.
 */
const SCRAPE_MEASURE_AFTER_MS = 1_000;
const SCRAPE_TIMEOUT_MS = 2_000;

/**
 * The replica's families, kept as plain numbers by the router and read at scrape time: where the
 * lag-tolerant reads went (and why the primary served them), the time reads waited for a token,
 * and the replica's lag (NaN without a replica, or while it cannot be measured).
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
    help: 'How far behind the primary the replica is: its last measurement plus that measurement\'s age, measured at most every 100 ms while reads come, and at a scrape when none has for 1 s. NaN without a replica, or when it cannot be measured.',
    async collect() {
      const lag = (await router?.scrapeLagMs(SCRAPE_MEASURE_AFTER_MS, SCRAPE_TIMEOUT_MS)) ?? null;
      this.set(lag === null ? Number.NaN : lag / 1000);
    },
  });
}
