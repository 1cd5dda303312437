/**
 * At most one log line per interval for a condition that can hit every request at once (a database
 * outage): the first occurrence is written at once, so the line carries a request id to follow;
 * later ones within the interval are counted and written as one line when it ends, with the
 * latest detail. A burst of a thousand failing requests costs a line a second, not a thousand.
 */
export class ThrottledLog<T> {
  private timer: NodeJS.Timeout | null = null;
  private held = 0;
  private latest: T | undefined;

  constructor(
    private readonly write: (detail: T, count: number) => void,
    private readonly intervalMs = 1_000,
  ) {}

  note(detail: T): void {
    if (this.timer) {
      this.held++;
      this.latest = detail;
      return;
    }
    this.write(detail, 1);
    this.startInterval();
  }

  private startInterval(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.held) return;
      const [detail, count] = [this.latest as T, this.held];
      this.held = 0;
      this.latest = undefined;
      this.write(detail, count);
      this.startInterval();
    }, this.intervalMs);
    // A pending summary must not keep a stopping process alive.
    this.timer.unref();
  }
}
