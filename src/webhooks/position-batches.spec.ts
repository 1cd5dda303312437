import { completedBatches, markLost } from './position-batches';
import type { AttemptRecord, PositionBatch } from './webhook-rows';

const batch = (endpointId: string, size: number): PositionBatch => ({ endpointId, lease: 'l', era: 1, xid: '9', seq: '5', size, recorded: 0, lost: false });

const result = (b: PositionBatch | null, n: number): AttemptRecord => ({
  id: `d${n}`,
  attempts: 1,
  outcome: 'delivered',
  status: 204,
  error: null,
  retryInMs: null,
  durationMs: 1,
  ...(b ? { fresh: { eventId: `e${n}`, createdAt: 'c', claimedAt: 'c', batch: b, endpointId: b.endpointId } } : {}),
});

describe('completedBatches', () => {
  it('moves a batch in the write of its last result, once', () => {
    const a = batch('a', 3);
    expect(completedBatches([result(a, 1), result(null, 2)])).toEqual([]);
    expect(completedBatches([result(a, 3), result(a, 4)])).toEqual([a]);
    expect(a.recorded).toBe(3);
  });

  it('moves every batch completed by one write, and none of another endpoint still waiting', () => {
    const [a, b, c] = [batch('a', 1), batch('b', 2), batch('c', 2)];
    expect(completedBatches([result(a, 1), result(b, 2), result(c, 3), result(b, 4)])).toEqual([a, b]);
  });

  it('never moves a batch one of whose results was lost, even when its last is written', () => {
    const a = batch('a', 2);
    const first = [result(a, 1)];
    expect(completedBatches(first)).toEqual([]);
    markLost(first);
    expect(completedBatches([result(a, 2)])).toEqual([]);
  });

  it('a lost write that held the last result moves nothing later', () => {
    const a = batch('a', 1);
    const lost = [result(a, 1)];
    expect(completedBatches(lost)).toEqual([a]);
    markLost(lost);
    expect(a.lost).toBe(true);
    expect(completedBatches([])).toEqual([]);
  });
});
