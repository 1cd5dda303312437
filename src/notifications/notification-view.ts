import { iso, isoNN, isoOfEpochMs } from '../common/time';
import { jsonOfJsonbText } from '../db/jsonb-text';
import type { NotificationDataDto, NotificationDto } from './dto/notification.dto';
import type { NotificationListRow, NotificationRow } from './notification-row';

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

/**
 * The JSON of toNotificationDto's Notification, byte for byte, written from a list row:
 * `userIdJson` is the recipient's external id as JSON (the same for the whole page). Ids are
 * uuids and kinds the table's checked set, neither needing an escape.
 */
export function notificationJson(r: NotificationListRow, userIdJson: string): string {
  return (
    `{"id":"${r.id}","kind":"${r.kind}","userId":${userIdJson},"groupId":${JSON.stringify(r.groupId)},` +
    `"actorUserId":${JSON.stringify(r.actorUserId)},"createdAt":"${isoOfEpochMs(r.createdAt)}","readAt":${JSON.stringify(isoOfEpochMs(r.readAt))},` +
    `"data":${jsonOfJsonbText(r.data)}}`
  );
}
