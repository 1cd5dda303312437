import type { ServerResponse } from 'node:http';
import type { SvcEvent } from './event';
import type { FeedEvent } from './feed.repository';
import { StreamStats } from './stream-stats';
import { StreamSubscriber } from './stream-subscriber';

/** A response that records what was written and can be made to look far behind. */
function fakeResponse() {
  const written: string[] = [];
  const res = {
    writableLength: 0,
    destroyed: false,
    write(chunk: string | Buffer) {
      written.push(chunk.toString());
      return true;
    },
    destroy() {
      this.destroyed = true;
    },
  };
  return { res, written };
}

const GAME = '01900000-0000-7000-8000-000000000001';
const event = (n: number, groupId = 'g1'): FeedEvent => {
  const body = { id: `e${n}`, type: 'member.joined', gameId: GAME, groupId, occurredAt: '2026-11-27T00:00:00.000Z' } as SvcEvent;
  return { body, position: { era: 1, xid: BigInt(n), seq: 1n }, storedAt: 0 };
};
const frame = (e: FeedEvent) => () => Buffer.from(`id: ${e.body.id}\n\n`);
const START = { era: 1, xid: 0n, seq: 0n };

describe('StreamSubscriber stats (for the metrics)', () => {
  it('counts each event frame it writes under its kind, and nothing it filters out', () => {
    const stats = new StreamStats();
    const { res, written } = fakeResponse();
    const sut = new StreamSubscriber(GAME, { groupId: 'g1' }, res as unknown as ServerResponse, START, false, 'group', stats);

    for (const e of [event(1), event(2, 'other'), event(3)]) sut.offer(e, frame(e));
    sut.write(':heartbeat\n\n');

    expect(written).toHaveLength(3);
    expect(stats.framesSent).toEqual({ game: 0, group: 2, admin: 0, notifications: 0 });
  });

  it('counts a subscriber cut off for being too far behind once, and writes nothing more to it', () => {
    const stats = new StreamStats();
    const { res, written } = fakeResponse();
    const sut = new StreamSubscriber(GAME, {}, res as unknown as ServerResponse, START, false, 'admin', stats);
    sut.offer(event(1), frame(event(1)));
    res.writableLength = 5 * 1024 * 1024;

    sut.offer(event(2), frame(event(2)));
    sut.offer(event(3), frame(event(3)));

    expect(res.destroyed).toBe(true);
    expect(written).toHaveLength(1);
    expect(stats.cutOff).toEqual({ slow: 1, rewound: 0, unheard: 0 });
    expect(stats.framesSent.admin).toBe(1);
  });
});

describe('StreamSubscriber replaying', () => {
  it('holds the live tail\'s events and frames outside the order, then writes them past the replay, each once', async () => {
    const { res, written } = fakeResponse();
    const sut = new StreamSubscriber(GAME, {}, res as unknown as ServerResponse, START, true);

    sut.offer(event(2), frame(event(2)));
    sut.offerUnordered(Buffer.from('read\n\n'));
    sut.offer(event(3), frame(event(3)));
    await sut.replayed(event(1));
    await sut.replayed(event(2));
    expect(written).toEqual([expect.stringContaining('id: e1\n'), expect.stringContaining('id: e2\n')]);
    sut.goLive();
    sut.offerUnordered(Buffer.from('read again\n\n'));

    expect(written.slice(2)).toEqual(['read\n\n', 'id: e3\n\n', 'read again\n\n']);
  });

  it('past 10,000 held frames drops the events for the replay to read, but keeps the frames outside the order', () => {
    const { res, written } = fakeResponse();
    const sut = new StreamSubscriber(GAME, {}, res as unknown as ServerResponse, START, true);

    sut.offerUnordered(Buffer.from('read\n\n'));
    for (let n = 1; n <= 10_000; n++) sut.offer(event(n), frame(event(n)));
    expect(sut.generation).toBe(1);
    sut.goLive();

    expect(written).toEqual(['read\n\n']);
  });
});
