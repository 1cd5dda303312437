/**
 * A background loop (SPEC §1.7): one run at a time, never overlapping; the in-flight run is kept
 * so shutdown can wait for it, up to a cap. The timer itself is owned by @nestjs/schedule's
 * registry; this holds the run discipline, so it is tested without Nest.
 */
export class PeriodicTask {
  private inFlight: Promise<void> | null = null;
  private stopped = false;
  private lastCompletedAt: number | null = null;

  constructor(private readonly work: () => Promise<void>) {}

  /** Starts a run unless one is in flight or the task is stopped; resolves when that run ends. */
  trigger(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.inFlight) return this.inFlight;
    const run = Promise.resolve()
      .then(() => this.work())
      .finally(() => {
        this.lastCompletedAt = Date.now();
        this.inFlight = null;
      });
    this.inFlight = run;
    return run;
  }

  /**
   * Resolves when a run that began after this call ends: one in flight may have looked before
   * what the caller wants seen was there, so it is waited for and another is started.
   */
  triggerAfter(): Promise<void> {
    const pending = this.inFlight;
    return pending ? pending.catch(() => undefined).then(() => this.trigger()) : this.trigger();
  }

  /** Time of the last completed run, or null before the first. */
  get completedAt(): number | null {
    return this.lastCompletedAt;
  }

  get running(): boolean {
    return this.inFlight !== null;
  }

  /** Refuses new runs and waits for the in-flight one, at most `capMs`. True if it finished. */
  async stop(capMs: number): Promise<boolean> {
    this.stopped = true;
    const pending = this.inFlight;
    if (!pending) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), capMs);
    });
    const done = await Promise.race([pending.then(() => true as const, () => true as const), timeout]);
    clearTimeout(timer);
    return done;
  }
}
