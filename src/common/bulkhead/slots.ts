/**
 * At most `limit` runs of one kind of work at once; the rest wait their turn, first come, first
 * served, and none is refused. For work whose cost lands on a resource the whole process shares,
 * where the caller's own limits (a rate limit, a per-game bulkhead) do not bound the total.
 */
export class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a slot limit is a positive integer, got ${limit}`);
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Runs now and runs waiting: what its tests read (no gauge shows it yet). */
  load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
