/**
 * Answers counted per (route, method, status class) with their latency buckets, kept as plain
 * numbers: recording one is two map lookups and three increments, with no label object, hashing
 * or allocation once a series exists. The exposition reads them at scrape time. Pure, so the
 * bucketing is unit-tested.
 */

/** Status class labels by the status's first digit; 0 stands for a status outside 100-599. */
const STATUS_CLASSES = ['other', '1xx', '2xx', '3xx', '4xx', '5xx'] as const;

interface Series {
  /** Observations per bucket, not cumulative; the last slot is above the highest bound. */
  readonly perBucket: Float64Array;
  count: number;
  sum: number;
}

export interface TallyReading {
  labels: { route: string; method: string; status_class: string };
  /** Cumulative counts, one per bound of `bounds`, then +Inf (which equals `count`). */
  cumulative: number[];
  count: number;
  sum: number;
}

export class RequestTally {
  /** route → method → series by status class index. */
  private readonly routes = new Map<string, Map<string, (Series | undefined)[]>>();

  constructor(readonly bounds: readonly number[]) {}

  record(route: string, method: string, status: number, seconds: number): void {
    let methods = this.routes.get(route);
    if (!methods) this.routes.set(route, (methods = new Map()));
    let byClass = methods.get(method);
    if (!byClass) methods.set(method, (byClass = []));
    const index = status >= 100 && status < 600 ? (status / 100) | 0 : 0;
    const series = (byClass[index] ??= { perBucket: new Float64Array(this.bounds.length + 1), count: 0, sum: 0 });
    series.perBucket[this.bucketOf(seconds)]++;
    series.count++;
    series.sum += seconds;
  }

  *readings(): Iterable<TallyReading> {
    for (const [route, methods] of this.routes) {
      for (const [method, byClass] of methods) {
        for (let index = 0; index < byClass.length; index++) {
          const series = byClass[index];
          if (!series) continue;
          let running = 0;
          const cumulative = Array.from(series.perBucket, (n) => (running += n));
          yield { labels: { route, method, status_class: STATUS_CLASSES[index] }, cumulative, count: series.count, sum: series.sum };
        }
      }
    }
  }

  /** The first bucket whose bound is at least `seconds` (Prometheus's `le`), else the +Inf slot. */
  private bucketOf(seconds: number): number {
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]) i++;
    return i;
  }
}
