// The admin API's answers the console reads, as the API document types them (the client
// package's generated schema): a change of the API shows here as a type error.
import type { components } from '../../clients/typescript/src/schema';

type Schemas = components['schemas'];

export type Game = Schemas['AdminGameDto'];
export type ApiKey = Schemas['ApiKeyDto'];
export type MintedKey = Schemas['MintedApiKeyDto'];
export type Stats = Schemas['AdminStatsDto'];
export type Group = Schemas['AdminGroupDto'];
/** A group as GET /v1/groups/search (and its admin twin) answers it. */
export type FoundGroup = Schemas['GroupDto'];
export interface OffsetPage<T> {
  items: T[];
  total: number;
  hasMore: boolean;
}
export interface CursorPage<T> {
  items: T[];
  nextCursor: string | null;
}
export type Member = Schemas['AdminMemberDto'];
/** A member as the game routes show it (its role assignments with their expiry), and what it may do. */
export type GroupMember = Schemas['MemberDto'];
export type EffectivePermissions = Schemas['EffectivePermissionsDto'];
export type Role = Schemas['RoleDto'];
export type Ban = Schemas['BanDto'];
/** A user's page in a game (GET /v1/admin/games/:gameId/users/:externalUserId). */
export type AdminUser = Schemas['AdminUserDto'];
export type UserMembership = Schemas['AdminUserMembershipDto'];
export type UserGames = Schemas['UserGamesDto'];
/** One of a player's notifications (EXTENSIONS X9), as GET /v1/admin/games/:gameId/users/:externalUserId/notifications lists them. */
export type UserNotification = Schemas['NotificationDto'];

/** What an erasure removed, counted (EXTENSIONS X7), in the order the console lists them. */
export const ERASED_COUNTS = [
  ['memberships', 'memberships', 'membership'],
  ['friendships', 'friendships', 'friendship'],
  ['friendRequests', 'friend requests', 'friend request'],
  ['blocks', 'blocks', 'block'],
  ['tags', 'friend tags', 'friend tag'],
  ['invitations', 'invitations', 'invitation'],
  ['joinRequests', 'join requests', 'join request'],
  ['bans', 'bans', 'ban'],
] as const;
export type ErasedCounts = Record<(typeof ERASED_COUNTS)[number][0], number>;

/**
 * The answer of DELETE /v1/admin/games/:gameId/users/:userId (EXTENSIONS X7): the user's data in
 * the game removed, and what still names them (audit entries, events) now naming the pseudonym.
 */
export interface Erasure {
  userId: string;
  pseudonym: string;
  erasedAt: string;
  removed: ErasedCounts;
}
export type AuditEntry = Schemas['AdminAuditItemDto'];
export type Webhook = Schemas['WebhookDto'];
export type Delivery = Schemas['WebhookDeliveryDto'];
export type DeliveryDetail = Schemas['WebhookDeliveryDetailDto'];
export type LiveEvent = Schemas['EventBodyDto'] & { [field: string]: unknown };
export type Churn = Schemas['GroupChurnDto'];
export type Growth = Schemas['GroupGrowthDto'];
export type Activity = Schemas['MemberActivityDto'];
export type RoleDistribution = Schemas['RoleDistributionDto'];
export type PermissionUsage = Schemas['PermissionUsageDto'];

/** The audit actions the admin audit search filters on. */
export const AUDIT_ACTIONS = [
  'group.created', 'group.updated', 'group.deleted', 'group.restored', 'group.parent.changed', 'group.owner_changed',
  'member.joined', 'member.invited', 'member.left', 'member.kicked', 'member.banned', 'member.unbanned',
  'member.updated', 'member.timed_out', 'member.timeout_lifted', 'member.role.assigned', 'member.role.removed',
  'role.created', 'role.updated', 'role.deleted', 'permission.granted', 'permission.revoked',
  'permission.override.set', 'permission.override.cleared', 'invitation.revoked',
  'join_request.created', 'join_request.approved', 'join_request.declined', 'join_request.cancelled',
  'game.user.banned', 'game.user.unbanned', 'webhook.created', 'webhook.updated', 'webhook.deleted',
  'webhook.secret_rotated', 'game.config.updated', 'game.user.linked', 'user.erased', 'user.exported', 'report.created', 'report.resolved',
] as const;

export type OperatorRole = Schemas['OperatorDto']['role'];
export type Operator = Schemas['OperatorDto'];
/** An operator just added: the only answer that carries its token. */
export type CreatedOperator = Schemas['CreatedOperatorDto'];
export type Whoami = Schemas['OperatorWhoamiDto'];
export type OperatorAuditEntry = Schemas['OperatorAuditEntryDto'];
export type OperatorAuditAction = NonNullable<OperatorAuditEntry['action']>;

/**
 * The actions the operator audit records and filters on, in the order the filter lists them. A
 * record, so an action the API document adds is a type error here until it is listed.
 */
const OPERATOR_ACTIONS: Record<OperatorAuditAction, true> = {
  'game.created': true, 'game.config_updated': true, 'api_key.minted': true, 'api_key.revoked': true,
  'operator.created': true, 'operator.role_changed': true, 'operator.deleted': true,
  'identity.linked': true, 'user.erased': true, 'user.exported': true, 'erasures.applied': true, 'ledger.applied': true,
  'member.kicked': true, 'member.role_assigned': true, 'member.timed_out': true, 'member.timeout_lifted': true, 'group.ban_added': true, 'group.ban_removed': true, 'game.ban_added': true, 'game.ban_removed': true,
  'join_request.approved': true, 'join_request.declined': true, 'group.updated': true, 'group.deleted': true, 'group.restored': true, 'report.resolved': true, 'names.scanned': true,
};
export const OPERATOR_AUDIT_ACTIONS = Object.keys(OPERATOR_ACTIONS) as OperatorAuditAction[];
export type JoinRequest = Schemas['JoinRequestDto'];
export type GameConfig = Schemas['GameConfigDto'];
/** What POST /v1/admin/games/:gameId/names/test answers (EXTENSIONS X10). */
export type NamesTest = Schemas['NamesTestResultDto'];
export type NameMatch = Schemas['NameMatchDto'];
/** A player's report (EXTENSIONS X10), as GET /v1/admin/games/:gameId/reports lists it. */
export type Report = Schemas['ReportDto'];
export type ReportSubject = Schemas['ReportSubjectDto'];
/** One row of the reports queue: a user or group with open reports, tallied. */
export type ReportedSubject = Schemas['ReportedSubjectDto'];
