/**
 * The periods this instance found the database unavailable (DECISIONS §30: refused, reset, timed
 * out, shutting down): one starts at the first failure seen while none is open, and ends at the
 * first success after it. Pure: the callers bring the signals and the clock.
 */
export class OutageClock {
  private since: number | null = null;
  private endedMs = 0;
  /** Periods begun since the process started. */
  periods = 0;

  get down(): boolean {
    return this.since !== null;
  }

  failed(now = Date.now()): void {
    if (this.since !== null) return;
    this.since = now;
    this.periods++;
  }

  succeeded(now = Date.now()): void {
    if (this.since === null) return;
    this.endedMs += Math.max(0, now - this.since);
    this.since = null;
  }

  /** Time spent unavailable, the open period included. */
  seconds(now = Date.now()): number {
    return (this.endedMs + (this.since === null ? 0 : Math.max(0, now - this.since))) / 1000;
  }
}
