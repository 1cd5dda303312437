import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import type { Settings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.module';
import type { TallyReading } from './request-tally';

/** The service's wire token: every metric name starts with it. */
export const METRIC_PREFIX = 'svc_';

interface Family<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

/**
 * The registry of this application's metrics, one per app (never prom-client's global one, so two
 * apps in one process, as in the tests, do not share series). Each owner (the database module, the
 * streams, the webhook worker, the caches) registers its own families here in a `*-metrics.ts`
 * file beside it; the metrics server writes them all out on a scrape.
 */
@Injectable()
export class MetricsRegistry {
  readonly registry = new Registry();
  /** METRICS_PORT is set: the endpoint exists, and the hooks on the hot paths are installed. */
  readonly enabled: boolean;

  constructor(@Inject(SETTINGS) settings: Settings) {
    this.enabled = settings.metricsPort !== undefined;
  }

  counter<L extends string>(family: Family<L>): Counter<L> {
    return new Counter({ ...checked(family, 'counter'), registers: [this.registry] });
  }

  gauge<L extends string>(family: Family<L> & { collect?: (this: Gauge<L>) => void | Promise<void> }): Gauge<L> {
    return new Gauge({ ...checked(family, 'gauge'), registers: [this.registry] });
  }

  histogram<L extends string>(family: Family<L> & { buckets: number[] }): Histogram<L> {
    return new Histogram({ ...checked(family, 'histogram'), registers: [this.registry] });
  }

  /**
   * A counter whose values are kept by its owner as plain numbers (a cache's hits, a stream's
   * frames), read at scrape time: the hot path pays an integer increment, not a label lookup.
   * `read` answers the running total, or one per value of the family's one label.
   */
  counterOf<L extends string>(family: Family<L>, read: () => number | Readonly<Record<string, number>>): Counter<L> {
    const label = family.labelNames?.[0];
    return new Counter({
      ...checked(family, 'counter'),
      registers: [this.registry],
      collect() {
        this.reset();
        const totals = read();
        if (typeof totals === 'number' || label === undefined) return this.inc(typeof totals === 'number' ? totals : 0);
        for (const [value, total] of Object.entries(totals)) this.inc({ [label]: value } as Partial<Record<L, string>>, total);
      },
    });
  }

  /**
   * A histogram and its request counter whose observations their owner keeps as plain numbers
   * (see RequestTally), written out at scrape time: the hot path pays no label lookup. `count`
   * is the counter family (`…_total`), `histogram` the latency family.
   */
  tallied(count: Family<string>, histogram: Family<string>, tally: { bounds: readonly number[]; readings(): Iterable<TallyReading> }): void {
    const counter = checked(count, 'counter');
    const latency = checked(histogram, 'histogram');
    const les = [...tally.bounds.map(String), '+Inf'];
    this.raw(counter, 'counter', () => Array.from(tally.readings(), ({ labels, count: value }) => ({ labels, value })));
    this.raw(latency, 'histogram', () =>
      Array.from(tally.readings()).flatMap(({ labels, cumulative, count: value, sum }) => [
        ...cumulative.map((n, i) => ({ labels: { ...labels, le: les[i] }, value: n, metricName: `${latency.name}_bucket` })),
        { labels, value: sum, metricName: `${latency.name}_sum` },
        { labels, value, metricName: `${latency.name}_count` },
      ]),
    );
  }

  /** The text exposition of every family, collecting the scrape-time ones first. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  /** A family prom-client writes out from the values `read` answers at scrape time (its Metric shape). */
  private raw(family: Family<string>, type: 'counter' | 'histogram', read: () => { labels: object; value: number; metricName?: string }[]): void {
    const { name, help } = family;
    const metric = { name, help, type, aggregator: 'sum', get: async () => ({ name, help, type, aggregator: 'sum', values: read() }) };
    this.registry.registerMetric(metric as unknown as Metric);
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** Prometheus's naming rules as the service applies them: the prefix, a HELP text, `_total` on counters only. */
function checked<F extends Family<string>>(family: F, type: 'counter' | 'gauge' | 'histogram'): F & { labelNames: string[] } {
  const { name, help } = family;
  if (!name.startsWith(METRIC_PREFIX)) throw new Error(`metric ${name} must start with ${METRIC_PREFIX}`);
  if (!help.trim()) throw new Error(`metric ${name} needs a HELP text`);
  if ((type === 'counter') !== name.endsWith('_total')) throw new Error(`metric ${name}: only counters end with _total`);
  return { ...family, labelNames: [...(family.labelNames ?? [])] };
}
