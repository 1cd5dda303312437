import { Global, Module, type OnModuleInit } from '@nestjs/common';
import { HttpMetrics } from './http-metrics';
import { MetricsRegistry } from './metrics-registry';
import { MetricsServer } from './metrics-server';
import { registerProcessMetrics } from './process-metrics';

/**
 * The one registry every owner's `*-metrics.ts` registers into (the database module, the streams,
 * the webhook worker, the caches, the rate limiter), the HTTP families, the process's, and the
 * server of METRICS_PORT that writes them out. Global, so owners need not import it.
 */
@Global()
@Module({
  providers: [MetricsRegistry, MetricsServer, HttpMetrics],
  exports: [MetricsRegistry, HttpMetrics],
})
export class MetricsModule implements OnModuleInit {
  constructor(private readonly metrics: MetricsRegistry) {}

  onModuleInit(): void {
    registerProcessMetrics(this.metrics);
  }
}
