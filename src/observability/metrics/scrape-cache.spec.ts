import { ScrapeCache } from './scrape-cache';

describe('ScrapeCache', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 1_000_000));

  it('measures once per ttl however often it is read', async () => {
    let loads = 0;
    const sut = new ScrapeCache(async () => ++loads, { ttlMs: 5_000, timeoutMs: 100, staleMs: 30_000, now: clock });

    expect(await sut.get()).toBe(1);
    now += 4_999;
    expect(await sut.get()).toBe(1);
    now += 1;
    expect(await sut.get()).toBe(2);
  });

  it('runs one measurement at a time: concurrent reads share it', async () => {
    let loads = 0;
    let release!: () => void;
    const sut = new ScrapeCache(
      () => new Promise<number>((resolve) => (release = () => resolve(++loads))),
      { ttlMs: 0, timeoutMs: 1_000, staleMs: 0, now: clock },
    );

    const reads = [sut.get(), sut.get(), sut.get()];
    release();

    expect(await Promise.all(reads)).toEqual([1, 1, 1]);
    expect(loads).toBe(1);
  });

  it('answers within its timeout when the measurement hangs, with the last value while it is fresh enough', async () => {
    let hang = false;
    const sut = new ScrapeCache(async () => (hang ? new Promise<number>(() => undefined) : 7), {
      ttlMs: 1_000,
      timeoutMs: 20,
      staleMs: 10_000,
      now: clock,
    });
    await sut.get();
    hang = true;
    now += 2_000;

    const started = Date.now();
    expect(await sut.get()).toBe(7);
    expect(Date.now() - started).toBeLessThan(1_000);
    now += 9_000;
    expect(await sut.get()).toBeUndefined();
  });

  it('reports a failed measurement and keeps the last good value until it is stale', async () => {
    const errors: unknown[] = [];
    let fail = false;
    const sut = new ScrapeCache(
      async () => {
        if (fail) throw new Error('down');
        return 3;
      },
      { ttlMs: 1_000, timeoutMs: 100, staleMs: 5_000, onError: (e) => errors.push(e), now: clock },
    );
    await sut.get();
    fail = true;
    now += 1_000;

    expect(await sut.get()).toBe(3);
    expect(errors).toHaveLength(1);
    now += 5_000;
    expect(await sut.get()).toBeUndefined();
  });
});
