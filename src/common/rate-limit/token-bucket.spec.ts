import { TokenBuckets } from './token-bucket';

const T0 = 1_700_000_000_000;

/** Takes `n` tokens for `key` at `now` and returns whether each was allowed. */
function takeMany(sut: TokenBuckets, key: string, n: number, now: number): boolean[] {
  return Array.from({ length: n }, () => sut.take(key, now).allowed);
}

describe('TokenBuckets', () => {
  it('allows a burst of calls at once, then denies the next', () => {
    const sut = new TokenBuckets({ perMinute: 60, burst: 3 });

    expect(takeMany(sut, 'k', 3, T0)).toEqual([true, true, true]);
    expect(sut.take('k', T0).allowed).toBe(false);
  });

  it.each([
    [60, 0, 1],
    [6, 0, 10],
    [6, 5_000, 5],
    [6, 9_500, 1],
    [1, 0, 60],
    [120, 0, 1],
  ])('at %i per minute, %i ms after draining, asks to retry after %i s', (perMinute, elapsed, expected) => {
    const sut = new TokenBuckets({ perMinute, burst: 1 });
    sut.take('k', T0);

    const result = sut.take('k', T0 + elapsed);

    expect(result).toEqual({ allowed: false, retryAfterSeconds: expected });
  });

  it('asks for a whole number of seconds, at least one', () => {
    const sut = new TokenBuckets({ perMinute: 7, burst: 1 });
    sut.take('k', T0);

    const result = sut.take('k', T0 + 1234);

    expect(result.allowed).toBe(false);
    const { retryAfterSeconds } = result as { retryAfterSeconds: number };
    expect(Number.isInteger(retryAfterSeconds)).toBe(true);
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retryAfterSeconds).toBe(8); // (60/7 s per token) - 1.234 s = 7.34 s, rounded up
  });

  it('does not consume a token when it denies', () => {
    const sut = new TokenBuckets({ perMinute: 60, burst: 1 });
    sut.take('k', T0);
    sut.take('k', T0 + 500);

    expect(sut.take('k', T0 + 1_000).allowed).toBe(true);
  });

  it('refills over time at the configured rate', () => {
    const sut = new TokenBuckets({ perMinute: 60, burst: 5 });
    takeMany(sut, 'k', 5, T0);

    expect(sut.take('k', T0 + 999).allowed).toBe(false);
    expect(takeMany(sut, 'k', 3, T0 + 2_000)).toEqual([true, true, false]);
  });

  it('keeps separate keys independent', () => {
    const sut = new TokenBuckets({ perMinute: 60, burst: 2 });
    takeMany(sut, 'a', 2, T0);

    expect(sut.take('a', T0).allowed).toBe(false);
    expect(takeMany(sut, 'b', 2, T0)).toEqual([true, true]);
    expect(sut.size).toBe(2);
  });

  it('never holds more than the burst after a long idle spell', () => {
    const sut = new TokenBuckets({ perMinute: 600, burst: 3 });
    sut.take('k', T0);

    const later = T0 + 24 * 60 * 60_000;

    expect(takeMany(sut, 'k', 4, later)).toEqual([true, true, true, false]);
  });

  it('does not refill when the clock goes backwards', () => {
    const sut = new TokenBuckets({ perMinute: 60, burst: 1 });
    sut.take('k', T0);

    expect(sut.take('k', T0 - 10_000).allowed).toBe(false);
  });

  describe('prune', () => {
    it('removes buckets that have refilled completely and keeps the others', () => {
      const sut = new TokenBuckets({ perMinute: 60, burst: 2 });
      takeMany(sut, 'full-again', 2, T0); // back to 2 tokens at T0 + 2 s
      takeMany(sut, 'still-low', 2, T0 + 1_500); // 0.5 token at T0 + 2 s
      sut.take('never-drained', T0 + 2_000); // 1 token

      sut.prune(T0 + 2_000);

      expect(sut.size).toBe(2);
      // a pruned key starts again with a full bucket
      expect(takeMany(sut, 'full-again', 3, T0 + 2_000)).toEqual([true, true, false]);
      // a kept key remembers its tokens
      expect(sut.take('still-low', T0 + 2_000).allowed).toBe(false);
    });

    it('removes every bucket once all have refilled', () => {
      const sut = new TokenBuckets({ perMinute: 60, burst: 2 });
      takeMany(sut, 'a', 2, T0);
      sut.take('b', T0);

      sut.prune(T0 + 60_000);

      expect(sut.size).toBe(0);
    });
  });
});
