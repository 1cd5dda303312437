import { memberCountSql, type GroupRow } from '../groups/group-row';
import type { MemberStatus } from '../members/member-row';

/** An audit entry joined with the names of its game and group (admin audit items). */
export interface AdminAuditRow {
  id: string;
  action: string;
  gameId: string;
  gameName: string;
  groupId: string | null;
  groupName: string | null;
  groupSoftDeleted: boolean;
  actorUserId: string | null;
  targetId: string | null;
  payload: Record<string, unknown>;
  createdAt: Date;
}

export const ADMIN_AUDIT_COLUMNS = `a.id, a.action, a.game_id AS "gameId", ga.name AS "gameName", a.group_id AS "groupId",
  gr.name AS "groupName", coalesce(gr.soft_deleted_at IS NOT NULL, false) AS "groupSoftDeleted",
  coalesce(a.actor_user_id::text, a.actor_pseudonym) AS "actorUserId", a.target_id AS "targetId", a.payload, a.created_at AS "createdAt"`;

/** The joins ADMIN_AUDIT_COLUMNS reads from; `a` is the journal, its audit entries only (`a.action IS NOT NULL`). */
export const ADMIN_AUDIT_JOINS = `JOIN games ga ON ga.id = a.game_id LEFT JOIN groups gr ON gr.id = a.group_id`;

export interface StatsRow {
  totalGames: number;
  totalGroups: number;
  totalActiveMembers: number;
  totalAuditEntriesLast24h: number;
}

export interface UserGameRow {
  gameId: string;
  externalUserId: string;
  joinedGroupCount: number;
}

/** A groups row as the admin views read it (WireAdminGroup): no passcode, only live groups. */
export type AdminGroupRow = Omit<GroupRow, 'passcodeHash' | 'softDeletedAt' | 'ownerSvcUserId'>;

export const ADMIN_GROUP_COLUMNS = `g.id, g.game_id AS "gameId", g.kind, g.name, g.visibility, g.metadata,
  g.default_role_id AS "defaultRoleId", g.parent_group_id AS "parentGroupId", g.tags, g.max_members AS "maxMembers",
  g.owner_external_id AS "ownerUserId", ${memberCountSql('g')} AS "memberCount",
  g.created_at AS "createdAt", g.updated_at AS "updatedAt"`;

export interface AdminMemberRoleRow {
  id: string;
  name: string;
  priority: number;
  color: string | null;
  isDefault: boolean;
}

export interface AdminMemberRow {
  id: string;
  groupId: string;
  externalUserId: string;
  svcUserId: string;
  status: MemberStatus;
  metadata: Record<string, unknown>;
  notesPublic: string | null;
  notesPrivate: string | null;
  joinedAt: Date;
  leftAt: Date | null;
  bannedUntil: Date | null;
  timedOutUntil: Date | null;
  roles: AdminMemberRoleRow[];
}

/** Roles as objects, priority descending then id descending (the order of the group's roles list). */
export const ADMIN_MEMBER_COLUMNS = `m.id, m.group_id AS "groupId", m.external_user_id AS "externalUserId",
  m.user_id AS "svcUserId", m.status, m.metadata, m.notes_public AS "notesPublic", m.notes_private AS "notesPrivate",
  m.joined_at AS "joinedAt", m.left_at AS "leftAt", m.banned_until AS "bannedUntil", m.timed_out_until AS "timedOutUntil",
  coalesce((SELECT json_agg(json_build_object('id', r.id, 'name', r.name, 'priority', r.priority, 'color', r.color,
                                              'isDefault', r.is_default) ORDER BY r.priority DESC, r.id DESC)
            FROM member_roles mr JOIN roles r ON r.id = mr.role_id WHERE mr.member_id = m.id), '[]'::json) AS roles`;

/** A page of an offset-based list with the count of every matching row. */
export interface CountedPage<R> {
  total: number;
  rows: R[];
}

/** A user of a game as the admin user page reads it: identity, counts and the game ban's columns. */
export interface AdminUserRow {
  svcUserId: string;
  userId: string;
  firstSeenAt: Date;
  groupBans: number;
  friendsCount: number;
  requestsSent: number;
  requestsReceived: number;
  blocks: number;
  blockedBy: number;
  /** The game_bans row, null when there is none (its columns prefixed `ban`). */
  banId: string | null;
  banUserId: string | null;
  banBannedAt: Date | null;
  banExpiresAt: Date | null;
  banReason: string | null;
  banBannedBy: string | null;
  banExpired: boolean | null;
}

/** One membership of a user, with its group's name and kind and its roles as objects. */
export interface AdminUserMembershipRow {
  memberId: string;
  groupId: string;
  groupName: string;
  groupKind: string;
  groupSoftDeleted: boolean;
  status: MemberStatus;
  joinedAt: Date;
  leftAt: Date | null;
  bannedUntil: Date | null;
  roles: AdminMemberRoleRow[];
}
