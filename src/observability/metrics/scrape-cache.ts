/**
 * A value measured at scrape time by a query (the webhook backlog, the feed's lag): measured at
 * most once per `ttlMs` however many Prometheus servers scrape, with one measurement in flight at
 * a time, and given up on after `timeoutMs` so a slow or absent database never holds a scrape.
 * While a measurement fails, the last good value is shown for `staleMs`, then nothing (the series
 * disappear, which an alert on absence can see) until one succeeds again.
 */
export class ScrapeCache<T> {
  private value: { at: number; data: T } | null = null;
  private inFlight: Promise<void> | null = null;
  private attemptedAt = -Infinity;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly options: { ttlMs: number; timeoutMs: number; staleMs: number; onError?: (err: unknown) => void; now?: () => number },
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The current value: fresh, cached, stale within `staleMs`, or undefined. */
  async get(): Promise<T | undefined> {
    const { ttlMs, timeoutMs, staleMs } = this.options;
    if (!this.inFlight && this.now() - this.attemptedAt >= ttlMs) {
      this.attemptedAt = this.now();
      const run = this.load().then(
        (data) => {
          this.value = { at: this.now(), data };
        },
        (err) => this.options.onError?.(err),
      );
      this.inFlight = run.finally(() => (this.inFlight = null));
    }
    if (this.inFlight) await waitAtMost(this.inFlight, timeoutMs);
    return this.value && this.now() - this.value.at <= Math.max(staleMs, ttlMs) ? this.value.data : undefined;
  }
}

function waitAtMost(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}
