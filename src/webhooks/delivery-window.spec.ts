import { DeliveryWindow, PER_ENDPOINT_IN_FLIGHT, WORKER_BATCH } from './delivery-window';

describe('DeliveryWindow (per-endpoint shares of the in-flight window)', () => {
  const fill = (w: DeliveryWindow, endpointId: string, n: number) => {
    for (let i = 0; i < n; i++) w.add(endpointId);
  };

  it('empty: every share and every slot is free', () => {
    const w = new DeliveryWindow();
    expect([w.size, w.share]).toEqual([WORKER_BATCH, PER_ENDPOINT_IN_FLIGHT]);
    expect(w.room()).toEqual({ endpointIds: [], inFlight: [], share: 10, fairFree: 50, borrowFree: 50 });
    expect(w.hasRoom).toBe(true);
  });

  it('counts in flight per endpoint; a borrowing endpoint takes one share and the free slots', () => {
    const w = new DeliveryWindow();
    fill(w, 'a', 35);
    fill(w, 'b', 4);
    expect(w.inFlight).toBe(39);
    expect(w.free).toBe(11);
    // a holds one share (10) however much it borrowed, b its 4: 36 of the shares' 50 remain.
    expect(w.room()).toEqual({ endpointIds: ['a', 'b'], inFlight: [35, 4], share: 10, fairFree: 36, borrowFree: 11 });
  });

  it('a full window still has room for other endpoints\' shares when one endpoint borrowed it', () => {
    const w = new DeliveryWindow();
    fill(w, 'a', 50);
    expect(w.free).toBe(0);
    expect(w.room().fairFree).toBe(40);
    expect(w.hasRoom).toBe(true);
    // Four more endpoints at their share: the shares are all taken, nothing more may be claimed.
    for (const e of ['b', 'c', 'd', 'e']) fill(w, e, 10);
    expect(w.inFlight).toBe(90);
    expect(w.room().fairFree).toBe(0);
    expect(w.hasRoom).toBe(false);
  });

  it('remove reports the endpoint falling below its share, once', () => {
    const w = new DeliveryWindow();
    fill(w, 'a', 12);
    expect([w.remove('a'), w.remove('a')]).toEqual([false, false]); // 12 -> 11 -> 10
    expect(w.remove('a')).toBe(true); // 10 -> 9
    expect(w.remove('a')).toBe(false);
    for (let i = 0; i < 8; i++) w.remove('a');
    expect(w.inFlight).toBe(0);
    expect(w.room().endpointIds).toEqual([]);
    // Removing what is not there changes nothing.
    expect(w.remove('a')).toBe(false);
    expect(w.inFlight).toBe(0);
  });
});
