import { ResultRecorder } from './result-recorder';
import type { AttemptRecord } from './webhook-rows';

const result = (id: string): AttemptRecord => ({ id, attempts: 1, outcome: 'delivered', status: 200, error: null, retryInMs: null, durationMs: 3 });
const tick = () => new Promise((r) => setImmediate(r));

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

describe('ResultRecorder (batched recording of attempt results)', () => {
  it('results that arrive together are written by one call, in arrival order', async () => {
    const writes: string[][] = [];
    const rec = new ResultRecorder(async (rs) => void writes.push(rs.map((r) => r.id)), () => undefined);
    await Promise.all(['a', 'b', 'c'].map((id) => rec.record(result(id))));
    expect(writes).toEqual([['a', 'b', 'c']]);
  });

  it('results arriving while a batch is being written make up the next batch; record resolves after its own write', async () => {
    const writes: string[][] = [];
    const first = gate();
    let calls = 0;
    const rec = new ResultRecorder(async (rs) => {
      writes.push(rs.map((r) => r.id));
      if (calls++ === 0) await first.opened;
    }, () => undefined);
    let aDone = false;
    const a = rec.record(result('a')).then(() => (aDone = true));
    await tick();
    const later = ['b', 'c', 'd'].map((id) => rec.record(result(id)));
    await tick();
    expect(writes).toEqual([['a']]);
    expect(aDone).toBe(false);
    first.open();
    await Promise.all([a, ...later]);
    expect(writes).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('splits a backlog into batches of at most maxBatch', async () => {
    const sizes: number[] = [];
    const rec = new ResultRecorder(async (rs) => void sizes.push(rs.length), () => undefined, 4);
    await Promise.all(Array.from({ length: 10 }, (_, i) => rec.record(result(`r${i}`))));
    expect(sizes).toEqual([4, 4, 2]);
  });

  it('retries a batch lost to a deadlock; reports (and resolves) a batch that cannot be written', async () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    let calls = 0;
    const lost: string[][] = [];
    const rec = new ResultRecorder(async () => {
      if (++calls < 3) throw deadlock;
    }, (_err, rs) => lost.push(rs.map((r) => r.id)));
    await rec.record(result('a'));
    expect([calls, lost]).toEqual([3, []]);

    const broken = new ResultRecorder(async () => {
      calls++;
      throw Object.assign(new Error('relation does not exist'), { code: '42P01' });
    }, (_err, rs) => lost.push(rs.map((r) => r.id)));
    calls = 0;
    await broken.record(result('b'));
    expect([calls, lost]).toEqual([1, [['b']]]);
  });
});
