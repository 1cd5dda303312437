import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '../../observability/metrics/metrics-registry';
import { RateLimiter } from './rate-limiter';

/** Requests the limiter refused (429), by the bucket that ran dry. */
@Injectable()
export class RateLimitMetrics {
  constructor(metrics: MetricsRegistry, limiter: RateLimiter) {
    metrics.counterOf(
      {
        name: 'svc_rate_limit_refusals_total',
        help: 'Requests answered 429 by this instance\'s limiter, by bucket: source (the per-address bucket) or key (the per-API-key bucket).',
        labelNames: ['bucket'] as const,
      },
      () => limiter.refusals,
    );
  }
}
