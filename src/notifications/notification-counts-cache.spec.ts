import type { PgListener } from '../db/pg-listener';
import { EventBus } from '../events/event-bus';
import { formatSignal } from './notification-channel';
import { NotificationCountsCache, type ReadCounts } from './notification-counts-cache';

const g = '0190f2a4-0000-7000-8000-000000000001';
const svc = '0190f2a4-0000-7000-8000-000000000002';
const other = '0190f2a4-0000-7000-8000-000000000003';

/** The listener's side the cache uses: what it subscribed, to deliver signals and a reconnect by hand. */
function setup() {
  let onMessage: (payload: string) => void = () => undefined;
  let onReset: () => void = () => undefined;
  const listener = {
    subscribe: (_channel: string, message: (payload: string) => void, reset: () => void) => {
      onMessage = message;
      onReset = reset;
    },
  } as unknown as PgListener;
  const bus = new EventBus();
  const cache = new NotificationCountsCache(listener, bus);
  cache.onModuleInit();
  return { cache, bus, signal: (payload: string) => onMessage(payload), reconnected: () => onReset() };
}

const counts = (unread: number): ReadCounts => ({ svcUserId: svc, counts: { unread, byKind: unread ? { 'member.kicked': unread } : {} } });

/** A read that resolves when told, so something can happen while it is in flight. */
function pending(value: ReadCounts) {
  let finish!: () => void;
  const read = jest.fn(() => new Promise<ReadCounts>((resolve) => (finish = () => resolve(value))));
  return { read, finish: () => finish() };
}

describe('NotificationCountsCache', () => {
  it('drops a player the unit of work reports notified here, before any signal', async () => {
    const { cache, bus } = setup();
    const read = jest.fn(async () => counts(1));
    await cache.get(g, 'alice', read);
    bus.publishNotified([{ gameId: g, svcUserId: other }]);
    await cache.get(g, 'alice', read);
    expect(read).toHaveBeenCalledTimes(1);
    bus.publishNotified([{ gameId: g, svcUserId: svc }]);
    await cache.get(g, 'alice', read);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('keeps what it read: the next get reads nothing', async () => {
    const { cache } = setup();
    const read = jest.fn(async () => counts(2));
    expect(await cache.get(g, 'alice', read)).toEqual(counts(2).counts);
    expect(await cache.get(g, 'alice', read)).toEqual(counts(2).counts);
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('does not keep counts read across an invalidation of their player (the generation guard)', async () => {
    const { cache } = setup();
    const first = pending(counts(2));
    const answer = cache.get(g, 'alice', first.read);
    cache.invalidate(g, svc);
    first.finish();
    expect(await answer).toEqual(counts(2).counts);
    const again = jest.fn(async () => counts(1));
    expect(await cache.get(g, 'alice', again)).toEqual(counts(1).counts);
    expect(again).toHaveBeenCalledTimes(1);
  });

  it("keeps counts read across another player's invalidation", async () => {
    const { cache } = setup();
    const first = pending(counts(2));
    const answer = cache.get(g, 'alice', first.read);
    cache.invalidate(g, other);
    first.finish();
    await answer;
    const again = jest.fn(async () => counts(9));
    expect(await cache.get(g, 'alice', again)).toEqual(counts(2).counts);
    expect(again).not.toHaveBeenCalled();
  });

  it('does not keep counts read across a reconnect of the listener, which clears everything', async () => {
    const { cache, reconnected } = setup();
    await cache.get(g, 'bob', async () => ({ ...counts(1), svcUserId: other }));
    const first = pending(counts(2));
    const answer = cache.get(g, 'alice', first.read);
    reconnected();
    first.finish();
    await answer;
    const again = jest.fn(async () => counts(3));
    expect(await cache.get(g, 'alice', again)).toEqual(counts(3).counts);
    const bob = jest.fn(async () => ({ ...counts(4), svcUserId: other }));
    expect(await cache.get(g, 'bob', bob)).toEqual(counts(4).counts);
  });

  it.each([
    ['new', formatSignal({ t: 'new', g, u: svc })],
    ['read', formatSignal({ t: 'read', g, u: svc, ids: [other] })],
    ['removed', formatSignal({ t: 'removed', g, u: svc })],
  ])('a %s signal naming the internal id drops the entry of the external one', async (_case, payload) => {
    const { cache, signal } = setup();
    await cache.get(g, 'alice', async () => counts(2));
    signal(payload);
    const again = jest.fn(async () => counts(3));
    expect(await cache.get(g, 'alice', again)).toEqual(counts(3).counts);
  });

  it('a signal of another game leaves the entry', async () => {
    const { cache, signal } = setup();
    await cache.get(g, 'alice', async () => counts(2));
    signal(formatSignal({ t: 'new', g: other, u: svc }));
    expect(await cache.get(g, 'alice', async () => counts(3))).toEqual(counts(2).counts);
  });

  it('keeps nothing for a player the game has never seen: their first notification names an id no entry has', async () => {
    const { cache } = setup();
    const read = jest.fn(async (): Promise<ReadCounts> => ({ svcUserId: null, counts: { unread: 0, byKind: {} } }));
    await cache.get(g, 'nobody', read);
    await cache.get(g, 'nobody', read);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('reads again once an entry has outlived its time', async () => {
    const { cache } = setup();
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      await cache.get(g, 'alice', async () => counts(2));
      now.mockReturnValue(1_000_000 + 60_001);
      expect(await cache.get(g, 'alice', async () => counts(5))).toEqual(counts(5).counts);
    } finally {
      now.mockRestore();
    }
  });
});
