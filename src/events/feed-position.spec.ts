import { ApiError } from '../common/errors/api-error';
import { beyond, comparePositions, endedBefore, FEED_START, isAfter, parseEventId, parseEventTypes, parseSnapshot, positionOf, type FeedPosition } from './feed-position';

const at = (xid: string, seq: string, era = 1): FeedPosition => positionOf({ era, xid, seq });

describe('feed positions', () => {
  it('orders by transaction id first, then by sequence number', () => {
    const sut = (xid: string, seq: string) => at(xid, seq);
    expect(isAfter(sut('10', '1'), sut('9', '500'))).toBe(true);
    expect(isAfter(sut('10', '2'), sut('10', '1'))).toBe(true);
    expect(isAfter(sut('10', '1'), sut('10', '1'))).toBe(false);
    expect(isAfter(sut('9', '500'), sut('10', '1'))).toBe(false);
    expect(isAfter(sut('1', '1'), FEED_START)).toBe(true);
  });

  it('keeps 64-bit transaction ids exact', () => {
    expect(isAfter(at('9007199254740993', '1'), at('9007199254740992', '1'))).toBe(true);
  });

  it('orders by era before anything else: the new events of a restored database follow every restored one', () => {
    expect(isAfter(at('700', '1', 2), at('91080', '9', 1))).toBe(true);
    expect(isAfter(at('91080', '9', 1), at('700', '1', 2))).toBe(false);
    expect(comparePositions(at('700', '1', 2), at('91080', '9', 1))).toBe(1);
    expect(comparePositions(at('5', '1', 1), at('5', '1', 1))).toBe(0);
    expect([at('700', '2', 2), at('91080', '1', 1), at('700', '1', 2)].sort(comparePositions)).toEqual([at('91080', '1', 1), at('700', '1', 2), at('700', '2', 2)]);
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
    const sut = parseSnapshot('100:105:100,103', 1);
    const ended = (xid: string) => endedBefore(at(xid, '1'), sut);
    expect(ended('99')).toBe(true);
    expect(ended('100')).toBe(false);
    expect(ended('101')).toBe(true);
    expect(ended('103')).toBe(false);
    expect(ended('105')).toBe(false);
    expect(endedBefore(at('106', '1'), parseSnapshot('106:106:', 1))).toBe(false);
  });

  it('compares transaction ids within the era of the snapshot only: an earlier era had ended, a later one is new', () => {
    const sut = parseSnapshot('100:105:', 2);
    expect(endedBefore(at('90000', '1', 1), sut)).toBe(true);
    expect(beyond(at('90000', '1', 1), sut)).toBe(false);
    expect(endedBefore(at('3', '1', 3), sut)).toBe(false);
    expect(beyond(at('3', '1', 3), sut)).toBe(true);
    expect(beyond(at('105', '1', 2), sut)).toBe(true);
    expect(beyond(at('104', '1', 2), sut)).toBe(false);
  });
});
