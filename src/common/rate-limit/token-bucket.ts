/** The outcome of taking one token: allowed, or denied with the whole seconds to wait (>= 1). */
export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface BucketRate {
  /** Tokens added per minute. */
  perMinute: number;
  /** Capacity: how many calls may come at once after a quiet spell. */
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets keyed by string, refilled continuously (SPEC §8 Rate limits). Pure apart from
 * its map: the caller passes the clock, so it is unit-tested without timers.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(private readonly rate: BucketRate) {
    this.perMs = rate.perMinute / 60_000;
  }

  take(key: string, now: number): TakeResult {
    const b = this.refilled(key, now);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true };
    }
    const waitMs = (1 - b.tokens) / this.perMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /** Drops buckets that have refilled completely: they hold no state worth keeping. */
  prune(now: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + (now - b.at) * this.perMs >= this.rate.burst) this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }

  private refilled(key: string, now: number): Bucket {
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: this.rate.burst, at: now };
      this.buckets.set(key, b);
      return b;
    }
    if (now > b.at) {
      b.tokens = Math.min(this.rate.burst, b.tokens + (now - b.at) * this.perMs);
      b.at = now;
    }
    return b;
  }
}
