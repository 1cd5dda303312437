import { Injectable } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { BoundedLabel, methodLabel, routeLabel } from './labels';
import { MetricsRegistry } from './metrics-registry';
import { RequestTally } from './request-tally';

/** Route templates the route label keeps: the service has about two hundred. */
const MAX_ROUTES = 500;

/** From a cache hit (~0.1 ms) to the 30 s statement timeout. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Requests per route template, method and status class, and their latency. Counted in one
 * `onResponse` hook, after the answer has gone, into plain numbers (RequestTally) that a scrape
 * reads: a cache-hit permission check costs ~40 µs of CPU, and prom-client's labelled `inc` and
 * `observe` (label hashing, twice) alone cost it ~3%.
 * A live stream that opened writes its own response, which Fastify never sees end: it is counted
 * by the stream families (EventMetrics), and only its refused handshakes (401, 404, 410) here.
 */
@Injectable()
export class HttpMetrics {
  private readonly routes = new BoundedLabel(MAX_ROUTES);
  private readonly tally = new RequestTally(LATENCY_BUCKETS);

  constructor(private readonly metrics: MetricsRegistry) {
    metrics.tallied(
      {
        name: 'svc_http_requests_total',
        help: 'HTTP requests answered, by route template (unmatched for unknown paths), method and status class (2xx..5xx).',
      },
      {
        name: 'svc_http_request_duration_seconds',
        help: "Time from a request's arrival to its answer, by route template, method and status class.",
      },
      this.tally,
    );
  }

  /** Installs the hook on the API server; a no-op while metrics are off. */
  install(fastify: FastifyInstance): void {
    if (!this.metrics.enabled) return;
    const { tally, routes } = this;
    fastify.addHook('onResponse', (request, reply, done) => {
      tally.record(routeLabel(request.routeOptions.url, routes), methodLabel(request.method), reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }
}
