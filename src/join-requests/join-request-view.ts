import { iso, isoNN } from '../common/time';
import type { JoinRequestDto } from './dto/join-request.dto';
import type { JoinRequestRow } from './join-request-row';

export function toJoinRequestDto(r: JoinRequestRow): JoinRequestDto {
  return {
    id: r.id,
    groupId: r.groupId,
    userId: r.userId,
    message: r.message,
    status: r.status,
    createdAt: isoNN(r.createdAt),
    decidedAt: iso(r.decidedAt),
    decidedByUserId: r.decidedByUserId,
  };
}
