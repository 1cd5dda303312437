import type { NotificationDto } from './dto/notification.dto';
import { notificationFrame, readFrame } from './notification-subscriber';

const ID = '019a7c3e-5f10-7a1b-8c3d-4e5f6a7b8c9d';
const n: NotificationDto = {
  id: ID,
  kind: 'member.kicked',
  userId: 'line\nbreak',
  groupId: null,
  actorUserId: null,
  createdAt: '2026-11-29T04:00:00.000Z',
  readAt: null,
  data: { reason: 'two\nlines' },
};

describe('notification stream frames', () => {
  it('a notification: its id as the frame id, event notification, the Notification as one data line', () => {
    const sut = notificationFrame(n);

    expect(sut).toBe(`id: ${ID}\nevent: notification\ndata: ${JSON.stringify(n)}\n\n`);
    // Line breaks inside values are escaped by JSON: one frame, one data line.
    expect(sut.split('\n')).toHaveLength(5);
  });

  it('read marks: event notifications.read with { ids } or { all, before }, and no id', () => {
    expect(readFrame({ t: 'read', g: 'g', u: 'u', ids: [ID] })).toBe(`event: notifications.read\ndata: {"ids":["${ID}"]}\n\n`);
    expect(readFrame({ t: 'read', g: 'g', u: 'u', all: true, before: '2026-11-29T04:00:00.000Z' })).toBe(
      'event: notifications.read\ndata: {"all":true,"before":"2026-11-29T04:00:00.000Z"}\n\n',
    );
  });
});
