import { ApiError } from '../errors/api-error';
import { GameBulkhead } from './game-bulkhead';

const settle = () => new Promise((r) => setImmediate(r));

describe('GameBulkhead', () => {
  const bulkhead = (limit = 2, queue = 1, maxWaitMs = 1_000) => new GameBulkhead({ what: 'searches', limit, queue, maxWaitMs });

  it('runs up to the limit of a game at once, then queues, then refuses with 429 and Retry-After', async () => {
    const b = bulkhead(2, 1);
    const first = await b.enter('g');
    await b.enter('g');
    let third: (() => void) | undefined;
    void b.enter('g').then((r) => (third = r));
    await expect(b.enter('g')).rejects.toMatchObject({ code: 'rate_limit_exceeded', status: 429, headers: { 'retry-after': '1' } });
    expect(b.load()).toEqual({ running: 2, waiting: 1, refused: 1 });
    await settle();
    expect(third).toBeUndefined();
    first();
    await settle();
    expect(third).toBeDefined();
    expect(b.load()).toMatchObject({ running: 2, waiting: 0 });
  });

  it('keeps games apart: one game at its limit leaves another game its own slots', async () => {
    const b = bulkhead(1, 0);
    await b.enter('busy');
    await expect(b.enter('busy')).rejects.toBeInstanceOf(ApiError);
    await expect(b.enter('other')).resolves.toEqual(expect.any(Function));
  });

  it('serves the line in arrival order', async () => {
    const b = bulkhead(1, 3);
    const release = await b.enter('g');
    const order: number[] = [];
    const waits = [1, 2, 3].map((n) => b.enter('g').then((r) => (order.push(n), r)));
    release();
    for (const w of waits) (await w)();
    expect(order).toEqual([1, 2, 3]);
    expect(b.load()).toEqual({ running: 0, waiting: 0, refused: 0 });
  });

  it('refuses a request that waited longer than the bound, and forgets it', async () => {
    jest.useFakeTimers();
    try {
      const b = bulkhead(1, 1, 5_000);
      await b.enter('g');
      const waiting = b.enter('g');
      jest.advanceTimersByTime(5_000);
      await expect(waiting).rejects.toMatchObject({ code: 'rate_limit_exceeded', message: expect.stringContaining('waited too long') });
      expect(b.load()).toEqual({ running: 1, waiting: 0, refused: 1 });
    } finally {
      jest.useRealTimers();
    }
  });

  it('gives a slot back once, however often release is called, and on a failure of the work', async () => {
    const b = bulkhead(1, 0);
    const release = await b.enter('g');
    release();
    release();
    expect(b.load().running).toBe(0);
    await expect(b.run('g', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(b.run('g', async () => 7)).resolves.toBe(7);
    expect(b.load()).toEqual({ running: 0, waiting: 0, refused: 0 });
  });
});
