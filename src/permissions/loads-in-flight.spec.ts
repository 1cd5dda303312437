import { LoadsInFlight } from './loads-in-flight';

/** A load that settles when told, recording what it was asked. */
function manualLoads() {
  const calls: { keys: string[]; resolve: (v: string[]) => void; reject: (e: Error) => void }[] = [];
  const loader = (keys: readonly string[]) => (indexes: number[]) =>
    new Promise<string[]>((resolve, reject) => calls.push({ keys: indexes.map((i) => keys[i]), resolve, reject }));
  return { calls, loader };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('LoadsInFlight', () => {
  it('joins a key asked again while its load runs: one load for many requests', async () => {
    const loads = new LoadsInFlight<string>();
    const { calls, loader } = manualLoads();
    const keys = ['a', 'b'];
    const answers = Array.from({ length: 20 }, () => loads.get(keys, loader(keys)));
    expect(calls).toHaveLength(1);
    calls[0].resolve(['A', 'B']);
    for (const a of answers) expect(await a).toEqual(['A', 'B']);
    expect(loads.size).toBe(0);
  });

  it('loads only the keys not in flight, and answers in the order asked', async () => {
    const loads = new LoadsInFlight<string>();
    const { calls, loader } = manualLoads();
    const first = loads.get(['a', 'b'], loader(['a', 'b']));
    const second = loads.get(['c', 'b', 'd'], loader(['c', 'b', 'd']));
    expect(calls.map((c) => c.keys)).toEqual([['a', 'b'], ['c', 'd']]);
    calls[1].resolve(['C', 'D']);
    calls[0].resolve(['A', 'B']);
    expect(await second).toEqual(['C', 'B', 'D']);
    expect(await first).toEqual(['A', 'B']);
  });

  it('loads a key again once its load has settled', async () => {
    const loads = new LoadsInFlight<string>();
    const { calls, loader } = manualLoads();
    const first = loads.get(['a'], loader(['a']));
    calls[0].resolve(['A1']);
    expect(await first).toEqual(['A1']);
    await tick();
    const again = loads.get(['a'], loader(['a']));
    expect(calls).toHaveLength(2);
    calls[1].resolve(['A2']);
    expect(await again).toEqual(['A2']);
  });

  it('fails every request that joined a failed load, then lets the key load again', async () => {
    const loads = new LoadsInFlight<string>();
    const { calls, loader } = manualLoads();
    const owner = loads.get(['a'], loader(['a']));
    const joined = loads.get(['a', 'b'], loader(['a', 'b']));
    calls[0].reject(new Error('database gone'));
    calls[1].resolve(['B']);
    await expect(owner).rejects.toThrow('database gone');
    await expect(joined).rejects.toThrow('database gone');
    await tick();
    expect(loads.size).toBe(0);
    const again = loads.get(['a'], loader(['a']));
    calls[2].resolve(['A']);
    expect(await again).toEqual(['A']);
  });
});
