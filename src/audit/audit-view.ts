import { isoNN } from '../common/time';
import type { AuditRow } from './audit-row';
import type { AuditEntryDto } from './dto/audit.dto';

export function toAuditDto(a: AuditRow): AuditEntryDto {
  return {
    id: a.id,
    ...(a.groupId ? { groupId: a.groupId } : {}),
    actorUserId: a.actorUserId,
    action: a.action,
    targetId: a.targetId,
    payload: a.payload,
    createdAt: isoNN(a.createdAt),
  };
}
