import { iso, isoNN } from '../common/time';
import type { InvitationDto, InvitationWithGroupDto } from './dto/invitation.dto';
import type { InvitationRow, InvitationRowWithGroup } from './invitation-row';

export function toInvitationDto(i: InvitationRow): InvitationDto {
  return {
    id: i.id,
    groupId: i.groupId,
    code: i.code,
    roleId: i.roleId,
    targetUserId: i.targetUserId,
    invitedByUserId: i.invitedByUserId,
    createdBy: null,
    createdAt: isoNN(i.createdAt),
    expiresAt: iso(i.expiresAt),
    usedAt: iso(i.usedAt),
    usedBy: i.usedBy,
    maxUses: i.maxUses,
    uses: i.uses,
  };
}

/** The invitation and what a player is invited into (EXTENSIONS X6: the preview and the inbox). */
export function toInvitationWithGroupDto(i: InvitationRowWithGroup): InvitationWithGroupDto {
  return { ...toInvitationDto(i), group: { id: i.groupId, name: i.groupName, kind: i.groupKind } };
}
