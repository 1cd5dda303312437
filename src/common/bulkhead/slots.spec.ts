import { Slots } from './slots';

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('Slots', () => {
  it('runs at most `limit` at once and starts the rest in the order they came', async () => {
    const slots = new Slots(2);
    const gates = Array.from({ length: 5 }, () => deferred());
    const started: number[] = [];
    const runs = gates.map((g, i) => slots.run(async () => (started.push(i), await g.promise, i)));
    await tick();
    expect(started).toEqual([0, 1]);
    expect(slots.load()).toEqual({ running: 2, waiting: 3 });
    gates[1].resolve();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[0].resolve();
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const g of gates) g.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('a failed run gives its slot back and its caller gets the error', async () => {
    const slots = new Slots(1);
    const failing = slots.run(() => Promise.reject(new Error('boom')));
    const after = slots.run(() => Promise.resolve('ran'));
    await expect(failing).rejects.toThrow('boom');
    await expect(after).resolves.toBe('ran');
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('a newcomer does not overtake a waiter when a slot frees', async () => {
    const slots = new Slots(1);
    const first = deferred();
    const order: string[] = [];
    const a = slots.run(async () => (await first.promise, order.push('a')));
    const b = slots.run(async () => order.push('b'));
    first.resolve();
    await a;
    const c = slots.run(async () => order.push('c'));
    await Promise.all([b, c]);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new Slots(0)).toThrow(RangeError);
    expect(() => new Slots(1.5)).toThrow(RangeError);
  });
});
