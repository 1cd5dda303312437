import type { NotificationKind } from './notification-kinds';
import type { NotificationListRow, NotificationRow } from './notification-row';
import { notificationJson, toNotificationDto } from './notification-view';

/** A list row and the row the stream reads for the same notification, as pg hands each over. */
function rows(o: { userId: string; groupId: string | null; actorUserId: string | null; createdAt: number; readAt: number | null; data: string }) {
  const common = { id: '019a3f6e-5b20-7c41-9d3e-2a1f0c4b8e77', kind: 'member.kicked' as NotificationKind, groupId: o.groupId, actorUserId: o.actorUserId };
  const list: NotificationListRow = { ...common, createdAt: String(o.createdAt), readAt: o.readAt === null ? null : String(o.readAt), data: o.data };
  const full: NotificationRow = {
    ...common,
    gameId: '019a3f6e-0000-7000-8000-000000000001',
    svcUserId: '019a3f6e-0000-7000-8000-000000000002',
    userId: o.userId,
    createdAt: new Date(o.createdAt),
    readAt: o.readAt === null ? null : new Date(o.readAt),
    data: JSON.parse(o.data) as Record<string, unknown>,
  };
  return { list, full };
}

describe('notificationJson', () => {
  it.each([
    { userId: 'alice', groupId: '019a3f6e-5b20-7c41-9d3e-000000000003', actorUserId: 'bob', createdAt: 1_764_000_000_123, readAt: 1_764_000_000_500 },
    { userId: 'p"1\\\n漢😀', groupId: null, actorUserId: null, createdAt: 1_764_000_000_000, readAt: null },
    { userId: 'x', groupId: null, actorUserId: 'erased:"\u0001', createdAt: 0, readAt: 1 },
  ])('writes the bytes JSON.stringify writes of toNotificationDto (%o)', (o) => {
    const data = '{"group": {"id": "019a3f6e-5b20-7c41-9d3e-000000000003", "kind": "guild", "name": "a\\", \\"b"}, "reason": null}';
    const { list, full } = rows({ ...o, data });
    expect(notificationJson(list, JSON.stringify(o.userId))).toBe(JSON.stringify(toNotificationDto(full)));
  });
});
