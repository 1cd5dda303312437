import { collectDefaultMetrics } from 'prom-client';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { RELEASE } from '../../version';
import { MetricsRegistry, METRIC_PREFIX } from './metrics-registry';

/**
 * The process: its build (release and runtime), prom-client's default metrics under the service's prefix (CPU, memory, heap, event
 * loop delay percentiles, handles, GC), and the event loop's utilisation since the last scrape,
 * which prom-client does not measure.
 */
export function registerProcessMetrics(metrics: MetricsRegistry): void {
  if (!metrics.enabled) return;
  collectDefaultMetrics({ register: metrics.registry, prefix: METRIC_PREFIX });
  // Always 1: the labels say which build answers, so a dashboard shows a rolling upgrade's progress.
  metrics
    .gauge({ name: 'svc_build_info', help: "This instance's build: its release (semver) and the Node.js it runs on; always 1.", labelNames: ['version', 'node'] as const })
    .set({ version: RELEASE, node: process.version }, 1);
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  metrics.gauge({
    name: 'svc_nodejs_eventloop_utilization_ratio',
    help: 'Share of the time since the previous scrape the event loop spent running code (0-1); near 1, the process is CPU-bound.',
    collect() {
      const now = performance.eventLoopUtilization();
      this.set(performance.eventLoopUtilization(now, last).utilization);
      last = now;
    },
  });
}
