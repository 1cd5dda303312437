import { PeriodicTask } from './periodic-task';

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: Error) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets pending promise callbacks run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether `promise` has settled after pending callbacks ran. */
async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await flush();
  return settled;
}

describe('PeriodicTask', () => {
  it('runs the work when triggered and resolves when it ends', async () => {
    const run = deferred();
    const work = jest.fn(() => run.promise);
    const sut = new PeriodicTask(work);

    const triggered = sut.trigger();

    expect(await hasSettled(triggered)).toBe(false);
    expect(work).toHaveBeenCalledTimes(1);
    expect(sut.running).toBe(true);
    run.resolve();
    await expect(triggered).resolves.toBeUndefined();
    expect(sut.running).toBe(false);
  });

  it('never overlaps runs: a trigger during a run joins it instead of starting another', async () => {
    const run = deferred();
    const work = jest.fn(() => run.promise);
    const sut = new PeriodicTask(work);

    const first = sut.trigger();
    const second = sut.trigger();

    expect(await hasSettled(second)).toBe(false);
    expect(work).toHaveBeenCalledTimes(1);
    run.resolve();
    await Promise.all([first, second]);
    expect(work).toHaveBeenCalledTimes(1);
  });

  it('starts a new run when triggered after the previous one ended', async () => {
    const work = jest.fn(() => Promise.resolve());
    const sut = new PeriodicTask(work);

    await sut.trigger();
    await sut.trigger();

    expect(work).toHaveBeenCalledTimes(2);
  });

  describe('triggerAfter', () => {
    it('runs at once when none is in flight', async () => {
      const work = jest.fn(() => Promise.resolve());
      const sut = new PeriodicTask(work);

      await sut.triggerAfter();

      expect(work).toHaveBeenCalledTimes(1);
    });

    it('waits for the run in flight, then runs again: that run may have looked too early', async () => {
      const runs = [deferred(), deferred()];
      let calls = 0;
      const work = jest.fn(() => runs[calls++].promise);
      const sut = new PeriodicTask(work);
      const first = sut.trigger();

      const after = sut.triggerAfter();
      runs[0].resolve();
      await first;

      expect(await hasSettled(after)).toBe(false);
      expect(work).toHaveBeenCalledTimes(2);
      runs[1].resolve();
      await after;
    });

    it('runs again after an in-flight run that failed, leaving that failure to its own caller', async () => {
      const work = jest.fn().mockRejectedValueOnce(new Error('boom')).mockResolvedValueOnce(undefined);
      const sut = new PeriodicTask(work);
      const first = sut.trigger();

      const after = sut.triggerAfter();

      await expect(first).rejects.toThrow('boom');
      await expect(after).resolves.toBeUndefined();
      expect(work).toHaveBeenCalledTimes(2);
    });
  });

  describe('completedAt', () => {
    afterEach(() => jest.restoreAllMocks());

    it('is null before the first run has completed', async () => {
      const run = deferred();
      const sut = new PeriodicTask(() => run.promise);
      expect(sut.completedAt).toBeNull();

      const triggered = sut.trigger();

      expect(sut.completedAt).toBeNull();
      run.resolve();
      await triggered;
    });

    it('is the time the last run completed', async () => {
      const run = deferred();
      const sut = new PeriodicTask(() => run.promise);
      const triggered = sut.trigger();
      jest.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000);

      run.resolve();
      await triggered;

      expect(sut.completedAt).toBe(1_700_000_000_000);
    });

    it('is set after a failing run too', async () => {
      jest.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000);
      const sut = new PeriodicTask(() => Promise.reject(new Error('boom')));

      await expect(sut.trigger()).rejects.toThrow('boom');

      expect(sut.completedAt).toBe(1_700_000_000_000);
    });
  });

  describe('after a failing run', () => {
    it('reports the failure to the caller that started the run', async () => {
      const sut = new PeriodicTask(() => Promise.reject(new Error('boom')));

      await expect(sut.trigger()).rejects.toThrow('boom');
    });

    it('is no longer running and runs again on the next trigger', async () => {
      const work = jest.fn().mockRejectedValueOnce(new Error('boom')).mockResolvedValueOnce(undefined);
      const sut = new PeriodicTask(work);

      await expect(sut.trigger()).rejects.toThrow('boom');
      expect(sut.running).toBe(false);
      await sut.trigger();

      expect(work).toHaveBeenCalledTimes(2);
    });

    it('recovers when the work throws before returning a promise', async () => {
      const work = jest
        .fn<Promise<void>, []>()
        .mockImplementationOnce(() => {
          throw new Error('sync boom');
        })
        .mockResolvedValueOnce(undefined);
      const sut = new PeriodicTask(work);

      await expect(sut.trigger()).rejects.toThrow('sync boom');
      expect(sut.running).toBe(false);
      await sut.trigger();

      expect(work).toHaveBeenCalledTimes(2);
    });
  });

  describe('stop', () => {
    it('returns true at once when no run is in flight', async () => {
      const sut = new PeriodicTask(() => Promise.resolve());

      await expect(sut.stop(1_000)).resolves.toBe(true);
    });

    it('waits for the in-flight run and returns true when it ends within the cap', async () => {
      const run = deferred();
      const sut = new PeriodicTask(() => run.promise);
      const triggered = sut.trigger();

      const stopped = sut.stop(5_000);

      expect(await hasSettled(stopped)).toBe(false);
      run.resolve();
      await expect(stopped).resolves.toBe(true);
      await triggered;
    });

    it('returns true when the in-flight run fails within the cap', async () => {
      const run = deferred();
      const sut = new PeriodicTask(() => run.promise);
      const triggered = sut.trigger().catch(() => undefined);

      const stopped = sut.stop(5_000);
      run.reject(new Error('boom'));

      await expect(stopped).resolves.toBe(true);
      await triggered;
    });

    it('gives up and returns false after the cap when the run takes longer', async () => {
      const run = deferred();
      const sut = new PeriodicTask(() => run.promise);
      const triggered = sut.trigger();
      const started = performance.now();

      const result = await sut.stop(50);
      const elapsed = performance.now() - started;

      expect(result).toBe(false);
      expect(elapsed).toBeGreaterThanOrEqual(40);
      expect(elapsed).toBeLessThan(1_000);
      run.resolve();
      await triggered;
    });

    it('refuses new runs afterwards', async () => {
      const work = jest.fn(() => Promise.resolve());
      const sut = new PeriodicTask(work);

      await sut.stop(50);
      await sut.trigger();

      expect(work).not.toHaveBeenCalled();
      expect(sut.running).toBe(false);
    });

    it('refuses new runs while waiting for the in-flight one', async () => {
      const run = deferred();
      const work = jest.fn(() => run.promise);
      const sut = new PeriodicTask(work);
      const triggered = sut.trigger();

      const stopped = sut.stop(5_000);
      run.resolve();
      await Promise.all([stopped, triggered]);
      await sut.trigger();

      expect(work).toHaveBeenCalledTimes(1);
    });
  });
});
