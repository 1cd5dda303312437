import { WriteQueue, type Waiting } from './write-queue';

/** A queue whose batches are held until the test releases them. */
function held(lanes: number, max: number) {
  const batches: { works: number[]; release(): void }[] = [];
  const queue = new WriteQueue<number>(lanes, max, (batch: Waiting<number>[]) => {
    return new Promise<void>((done) => {
      batches.push({
        works: batch.map((w) => w.work),
        release: () => {
          for (const w of batch) w.resolve(w.work * 10);
          done();
        },
      });
    });
  });
  return { queue, batches };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('WriteQueue', () => {
  it('serves a write at once while a lane is free', async () => {
    const { queue, batches } = held(2, 8);
    const a = queue.submit(1);
    const b = queue.submit(2);
    expect(batches.map((x) => x.works)).toEqual([[1], [2]]);
    batches.forEach((x) => x.release());
    expect(await Promise.all([a, b])).toEqual([10, 20]);
    expect(queue.served).toEqual({ batches: 2, writes: 2 });
  });

  it('gives a lane coming free every write waiting, up to max, in the order they came', async () => {
    const { queue, batches } = held(1, 3);
    const answers = [1, 2, 3, 4, 5, 6].map((n) => queue.submit(n));
    expect(queue.queued).toBe(5);
    batches[0].release();
    await tick();
    expect(batches.map((x) => x.works)).toEqual([[1], [2, 3, 4]]);
    batches[1].release();
    await tick();
    expect(batches[2].works).toEqual([5, 6]);
    batches[2].release();
    expect(await Promise.all(answers)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(queue.queued).toBe(0);
    expect(queue.served).toEqual({ batches: 3, writes: 6 });
  });

  it('answers a batch whose serving failed with its error, and serves the next', async () => {
    let calls = 0;
    const queue = new WriteQueue<number>(1, 4, async (batch) => {
      if (calls++ === 0) throw new Error('lost');
      for (const w of batch) w.resolve(w.work);
    });
    const first = queue.submit(1);
    const second = queue.submit(2);
    await expect(first).rejects.toThrow('lost');
    expect(await second).toBe(2);
  });
});
