import { ApiError } from '../common/errors/api-error';
import { endedBefore, FEED_START, isAfter, parseEventId, parseEventTypes, parseSnapshot, positionOf } from './feed-position';

describe('feed positions', () => {
  it('orders by transaction id first, then by sequence number', () => {
    const sut = (xid: string, seq: string) => positionOf({ xid, seq });
    expect(isAfter(sut('10', '1'), sut('9', '500'))).toBe(true);
    expect(isAfter(sut('10', '2'), sut('10', '1'))).toBe(true);
    expect(isAfter(sut('10', '1'), sut('10', '1'))).toBe(false);
    expect(isAfter(sut('9', '500'), sut('10', '1'))).toBe(false);
    expect(isAfter(sut('1', '1'), FEED_START)).toBe(true);
  });

  it('keeps 64-bit transaction ids exact', () => {
    expect(isAfter(positionOf({ xid: '9007199254740993', seq: '1' }), positionOf({ xid: '9007199254740992', seq: '1' }))).toBe(true);
  });
});

describe('parseEventId', () => {
  it('accepts an event id and leaves an absent one absent', () => {
    expect(parseEventId('0123456789abcdef01234567', 'after')).toBe('0123456789abcdef01234567');
    expect(parseEventId(undefined, 'after')).toBeUndefined();
  });

  it.each(['', 'xyz', '0123456789ABCDEF01234567', '0123456789abcdef0123456', '0123456789abcdef012345678'])('refuses %j naming the field', (raw) => {
    expect(() => parseEventId(raw, 'Last-Event-ID')).toThrow(/^Last-Event-ID must be an event id/);
  });
});

describe('parseEventTypes', () => {
  it('reads a comma list of known types, without repeats', () => {
    expect(parseEventTypes('member.joined, member.left,member.joined')).toEqual(['member.joined', 'member.left']);
    expect(parseEventTypes(undefined)).toBeNull();
  });

  it.each([['member.joined,nope'], [''], ['member.joined,'], ['member.*']])('refuses %j with a 400 naming types', (raw) => {
    let err: unknown;
    try {
      parseEventTypes(raw);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).message).toMatch(/^types/);
  });
});

describe('snapshots', () => {
  it('a transaction below xmin had ended; one listed in progress or at/above xmax had not', () => {
    const sut = parseSnapshot('100:105:100,103');
    expect(endedBefore(99n, sut)).toBe(true);
    expect(endedBefore(100n, sut)).toBe(false);
    expect(endedBefore(101n, sut)).toBe(true);
    expect(endedBefore(103n, sut)).toBe(false);
    expect(endedBefore(105n, sut)).toBe(false);
    expect(endedBefore(106n, parseSnapshot('106:106:'))).toBe(false);
  });
});
