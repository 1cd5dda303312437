import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '../observability/metrics/metrics-registry';
import { ApiKeyCache } from './api-key-cache';

/** The API key cache's hits and misses: misses cost a database read before the request starts. */
@Injectable()
export class ApiKeyMetrics {
  constructor(metrics: MetricsRegistry, cache: ApiKeyCache) {
    metrics.counterOf(
      {
        name: 'svc_api_key_cache_lookups_total',
        help: 'API keys looked up to authenticate a request, by result: hit (in memory) or miss (read from the database: a first use, an unknown prefix, or after a revocation).',
        labelNames: ['result'] as const,
      },
      () => cache.lookups,
    );
  }
}
