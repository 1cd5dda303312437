// The admin API's answers, as far as the console reads them (docs/api/openapi.json has them whole).

export interface Game {
  id: string;
  name: string;
  createdAt: string;
  groupCount: number;
  activeMemberCount: number;
  apiKeyCount: number;
}
export interface ApiKey {
  id: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}
export interface MintedKey extends ApiKey {
  key: string;
}
export interface Stats {
  totalGames: number;
  totalGroups: number;
  totalActiveMembers: number;
  totalAuditEntriesLast24h: number;
}
export interface Group {
  id: string;
  kind: string;
  name: string;
  visibility: string;
  parentGroupId: string | null;
  memberCount: number;
  createdAt: string;
}
export interface OffsetPage<T> {
  items: T[];
  total: number;
  hasMore: boolean;
}
export interface CursorPage<T> {
  items: T[];
  nextCursor: string | null;
}
export interface Member {
  id: string;
  externalUserId: string;
  svcUserId: string;
  status: string;
  joinedAt: string;
  leftAt: string | null;
  roles: Array<{ id: string; name: string; color: string | null }>;
}
export interface Role {
  id: string;
  name: string;
  priority: number;
  color: string | null;
  isDefault: boolean;
  permissions: string[];
  createdAt: string;
}
export interface Ban {
  id: string;
  userId: string;
  bannedAt: string;
  expiresAt: string | null;
  reason: string | null;
  bannedBy: string | null;
}
export interface AuditEntry {
  id: string;
  action: string;
  groupId: string | null;
  groupName?: string | null;
  groupSoftDeleted?: boolean;
  actorUserId: string | null;
  targetId: string | null;
  payload: Record<string, unknown> | null;
  createdAt: string;
}
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  format: string;
  createdAt: string;
  disabledAt: string | null;
}
export interface Delivery {
  id: string;
  eventId: string;
  eventType: string | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
}
export interface DeliveryDetail extends Delivery {
  attemptLog: Array<{ number: number; at: string; statusCode: number | null; error: string | null; durationMs: number }>;
}
export interface LiveEvent {
  id: string;
  type: string;
  groupId?: string;
  occurredAt: string;
  [field: string]: unknown;
}
export interface Churn {
  totalGroupsInWindow: number;
  totalDeparturesInWindow: number;
  bins: Array<{ label: string; count: number }>;
}
export interface Growth {
  bucketSizeMs: number;
  buckets: string[];
  series: Array<{ key: string; name: string; data: number[] }>;
}
export interface Activity {
  totalEvents: number;
  cells: number[][];
}
export interface RoleDistribution {
  totalAssignments: number;
  uniqueRoleNames: number;
  topRoles: Array<{ name: string; count: number }>;
  otherCount: number;
}
export interface PermissionUsage {
  totalCount: number;
  uniqueKeys: number;
  items: Array<{ permission: string; roleGrants: number; memberOverrides: number; total: number }>;
  otherCount: number;
}

/** The audit actions the admin audit search filters on. */
export const AUDIT_ACTIONS = [
  'group.created', 'group.updated', 'group.deleted', 'group.restored', 'group.parent.changed',
  'member.joined', 'member.invited', 'member.left', 'member.kicked', 'member.banned', 'member.unbanned',
  'member.updated', 'member.role.assigned', 'member.role.removed',
  'role.created', 'role.updated', 'role.deleted', 'permission.granted', 'permission.revoked',
  'permission.override.set', 'permission.override.cleared', 'invitation.revoked',
  'join_request.created', 'join_request.approved', 'join_request.declined', 'join_request.cancelled',
  'game.user.banned', 'game.user.unbanned', 'webhook.created', 'webhook.updated', 'webhook.deleted',
  'webhook.secret_rotated', 'game.config.updated', 'game.user.linked',
] as const;
