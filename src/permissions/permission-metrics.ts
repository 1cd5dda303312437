import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '../observability/metrics/metrics-registry';
import { PermissionCache } from './permission-cache';

/** The permission cache's hits and misses: a falling hit ratio means checks reach the database. */
@Injectable()
export class PermissionMetrics {
  constructor(metrics: MetricsRegistry, cache: PermissionCache) {
    metrics.counterOf(
      {
        name: 'svc_permission_cache_lookups_total',
        help: 'Permission checks looked up in the 60 s answer cache, by result: hit (answered from memory) or miss (computed from the database).',
        labelNames: ['result'] as const,
      },
      () => cache.lookups,
    );
  }
}
