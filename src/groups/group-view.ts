import { iso, isoNN } from '../common/time';
import type { GroupDto } from './dto/group.dto';
import type { GroupRow } from './group-row';

/** The wire Group (SPEC §2): the passcode never leaves, only whether there is one. */
export function toGroupDto(g: GroupRow): GroupDto {
  return {
    id: g.id,
    gameId: g.gameId,
    kind: g.kind,
    name: g.name,
    visibility: g.visibility,
    metadata: g.metadata,
    defaultRoleId: g.defaultRoleId,
    parentGroupId: g.parentGroupId,
    tags: g.tags,
    maxMembers: g.maxMembers,
    ownerUserId: g.ownerUserId,
    memberCount: g.memberCount,
    hasPasscode: g.passcodeHash !== null,
    createdAt: isoNN(g.createdAt),
    updatedAt: isoNN(g.updatedAt),
    softDeletedAt: iso(g.softDeletedAt),
  };
}
