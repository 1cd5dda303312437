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
        help: 'Permission checks (each of a batch, and each effective set) looked up in the 60 s cache of members\' grants, by result: hit (answered from memory) or miss (the member\'s grants read from the database).',
        labelNames: ['result'] as const,
      },
      () => cache.lookups,
    );
  }
}
