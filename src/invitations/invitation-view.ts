import { iso, isoNN } from '../common/time';
import type { InvitationDto } from './dto/invitation.dto';
import type { InvitationRow } from './invitation-row';

export function toInvitationDto(i: InvitationRow): InvitationDto {
  return {
    id: i.id,
    groupId: i.groupId,
    code: i.code,
    roleId: i.roleId,
    targetUserId: i.targetUserId,
    createdBy: null,
    createdAt: isoNN(i.createdAt),
    expiresAt: iso(i.expiresAt),
    usedAt: iso(i.usedAt),
    usedBy: i.usedBy,
    maxUses: i.maxUses,
    uses: i.uses,
  };
}
