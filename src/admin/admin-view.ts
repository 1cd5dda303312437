import { auditPayloadAsShown } from '../audit/audit-view';
import { iso, isoNN } from '../common/time';
import { timeoutInForce } from '../members/member-view';
import type { AdminAuditRow, AdminGroupRow, AdminMemberRow, AdminUserMembershipRow } from './admin-rows';
import type { AdminAuditItemDto } from './dto/admin.dto';
import type { AdminGroupDto, AdminMemberDto } from './dto/admin-groups.dto';
import type { AdminUserMembershipDto } from './dto/admin-users.dto';

export function toAdminAuditItem(a: AdminAuditRow): AdminAuditItemDto {
  return {
    id: a.id,
    action: a.action,
    gameId: a.gameId,
    gameName: a.gameName,
    groupId: a.groupId,
    groupName: a.groupName,
    groupSoftDeleted: a.groupSoftDeleted,
    actorUserId: a.actorUserId,
    targetId: a.targetId,
    payload: auditPayloadAsShown(a.action, a.payload),
    createdAt: isoNN(a.createdAt),
  };
}

/** WireAdminGroup: the passcode and soft-deletion state are not part of it. */
export function toAdminGroup(g: AdminGroupRow): AdminGroupDto {
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
    createdAt: isoNN(g.createdAt),
    updatedAt: isoNN(g.updatedAt),
  };
}

export function toAdminMember(m: AdminMemberRow): AdminMemberDto {
  return {
    id: m.id,
    groupId: m.groupId,
    externalUserId: m.externalUserId,
    svcUserId: m.svcUserId,
    status: m.status,
    metadata: m.metadata,
    notesPublic: m.notesPublic,
    notesPrivate: m.notesPrivate,
    joinedAt: isoNN(m.joinedAt),
    // SPEC §4: null while active (DECISIONS §28 clears it on rejoin anyway).
    leftAt: m.status === 'active' ? null : iso(m.leftAt),
    // As on the game routes' Member: meaningful only while banned.
    bannedUntil: m.status === 'banned' ? iso(m.bannedUntil) : null,
    timedOutUntil: iso(timeoutInForce(m.timedOutUntil)),
    roles: m.roles.map((r) => ({ id: r.id, name: r.name, priority: r.priority, color: r.color, isDefault: r.isDefault })),
  };
}

export function toAdminUserMembership(m: AdminUserMembershipRow): AdminUserMembershipDto {
  return {
    memberId: m.memberId,
    groupId: m.groupId,
    groupName: m.groupName,
    groupKind: m.groupKind,
    groupSoftDeleted: m.groupSoftDeleted,
    status: m.status,
    joinedAt: isoNN(m.joinedAt),
    // As in the admin members list: null while active, bannedUntil only while banned.
    leftAt: m.status === 'active' ? null : iso(m.leftAt),
    bannedUntil: m.status === 'banned' ? iso(m.bannedUntil) : null,
    roles: m.roles.map((r) => ({ id: r.id, name: r.name, priority: r.priority, color: r.color, isDefault: r.isDefault })),
  };
}
