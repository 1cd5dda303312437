import { iso, isoNN } from '../common/time';
import type { NotificationDataDto, NotificationDto } from './dto/notification.dto';
import type { NotificationRow } from './notification-row';

/** The Notification of EXTENSIONS X9, as the list and the stream send it. */
export function toNotificationDto(r: NotificationRow): NotificationDto {
  return {
    id: r.id,
    kind: r.kind,
    userId: r.userId,
    groupId: r.groupId,
    actorUserId: r.actorUserId,
    createdAt: isoNN(r.createdAt),
    readAt: iso(r.readAt),
    data: r.data as NotificationDataDto,
  };
}
