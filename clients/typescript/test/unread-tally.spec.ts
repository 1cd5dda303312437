import type { Notification } from '../src/index.js';
import { UnreadTally } from '../src/unread-tally.js';

/** UnreadTally alone: which frames the counts hold, and what each mark takes off. */
const at = (second: number) => `2026-12-01T18:00:${String(second).padStart(2, '0')}.000Z`;
const id = (n: number) => `019a3f6e-0000-7000-8000-${String(n).padStart(12, '0')}`;
const notification = (n: number, read = false): { type: 'notification'; notification: Notification } => ({
  type: 'notification',
  notification: { id: id(n), kind: 'invitation.received', userId: 'carol', groupId: null, actorUserId: null, createdAt: at(n), readAt: read ? at(n) : null, data: {} },
});

describe('UnreadTally', () => {
  it('adds what arrives after the counts unread, once; what arrived before the answer is in it', () => {
    const sut = new UnreadTally();
    sut.recount();
    sut.apply(notification(10));
    sut.counted(3, { createdAt: at(10), id: id(10) });
    expect(sut.unread).toBe(3);
    sut.apply(notification(11));
    sut.apply(notification(11));
    sut.apply(notification(12, true));
    expect(sut.unread).toBe(4);
  });

  it('a replay that outlasts the counts: what is no newer than the newest they held is in them', () => {
    const sut = new UnreadTally();
    sut.recount();
    sut.counted(5, { createdAt: at(20), id: id(20) });
    for (const n of [18, 19, 20]) sut.apply(notification(n));
    expect(sut.unread).toBe(5);
    sut.apply(notification(21));
    expect(sut.unread).toBe(6);
  });

  it('a mark by ids takes off those counted unread: met in frames, or held by the counts; nothing for one read already', () => {
    const sut = new UnreadTally();
    sut.recount();
    sut.counted(2, null);
    sut.apply(notification(1));
    sut.apply(notification(2, true));
    expect(sut.unread).toBe(3);
    sut.apply({ type: 'notifications.read', ids: [id(1), id(2), id(99)] });
    expect(sut.unread).toBe(1);
    sut.apply({ type: 'notifications.read', ids: [id(99)] });
    expect(sut.unread).toBe(1);
  });

  it('all, before: zero but what frames showed created since', () => {
    const sut = new UnreadTally();
    sut.recount();
    sut.apply(notification(5));
    sut.counted(7, null);
    sut.apply(notification(6));
    sut.apply(notification(30));
    expect(sut.unread).toBe(9);
    sut.apply({ type: 'notifications.read', all: true, before: at(29) });
    expect(sut.unread).toBe(1);
  });

  it('marks told while the counts are awaited are in their answer', () => {
    const sut = new UnreadTally();
    sut.recount();
    sut.counted(2, null);
    sut.apply(notification(3));
    sut.recount();
    sut.apply({ type: 'notifications.read', ids: [id(3), id(98)] });
    sut.counted(1, null);
    expect(sut.unread).toBe(1);
  });

  it('never below zero', () => {
    const sut = new UnreadTally();
    sut.recount();
    sut.counted(0, null);
    sut.apply({ type: 'notifications.read', ids: [id(1)] });
    expect(sut.unread).toBe(0);
  });
});
