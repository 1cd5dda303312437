import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiProperty } from '@nestjs/swagger';
import { AuditEntryDto } from '../../audit/dto/audit.dto';
import { BanDto, BanHistoryEntryDto } from '../../bans/dto/ban.dto';
import { EXPORTS_IN_FLIGHT_PER_GAME } from '../../common/bulkhead/game-reads';
import { EventBodyDto } from '../../events/dto/feed.dto';
import { BlockDto, FriendRequestDto, FriendshipDto, FriendTagDto, VisibilityDto } from '../../friends/dto/friends.dto';
import { InvitationWithGroupDto } from '../../invitations/dto/invitation.dto';
import { JoinRequestDto } from '../../join-requests/dto/join-request.dto';
import { MemberDto } from '../../members/dto/member.dto';
import { NotificationDto } from '../../notifications/dto/notification.dto';
import { OverrideDto } from '../../permissions/dto/permission.dto';
import { ReportDto } from '../../reports/dto/report.dto';

/**
 * The export document of EXTENSIONS X7: each item is the shape the API answers for it elsewhere
 * (Member, Invitation, Ban, Friendship, audit entry, event body...), with the few additions named.
 */

/** The group of a membership, which may be soft-deleted (no other read shows those). */
export class UserExportGroupDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() kind!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'set while the group is soft-deleted (it is in the export all the same)' })
  softDeletedAt!: string | null;
}

export class UserExportMembershipDto extends MemberDto {
  @ApiProperty({ type: UserExportGroupDto, description: 'the group, live or soft-deleted' }) group!: UserExportGroupDto;
  @ApiProperty({ type: [OverrideDto], description: "the member's permission overrides, by permission key (byte order)" })
  permissionOverrides!: OverrideDto[];
}

export class UserExportBansDto {
  @ApiProperty({
    type: [BanDto],
    description: 'the game-wide ban stored for the user: at most one, whether in force or lapsed (a lifted ban is no longer stored, only its history)',
  })
  game!: BanDto[];
  @ApiProperty({ type: [MemberDto], description: 'the memberships in status banned (bannedUntil: null for a ban without end), oldest joinedAt first' })
  groups!: MemberDto[];
  @ApiProperty({ type: [BanHistoryEntryDto], description: 'every set and lift at both scopes, oldest first' })
  history!: BanHistoryEntryDto[];
}

export class UserExportFriendTagDto extends FriendTagDto {
  @ApiProperty({ type: [String], description: 'external ids of the friends the tag labels' }) friendSvcUserIds!: string[];
}

export class UserExportFriendsDto {
  @ApiProperty({ type: [FriendshipDto], description: "the user's side of each friendship made in this game, with its tagIds; oldest friendship first" })
  friends!: FriendshipDto[];
  @ApiProperty({ type: [FriendRequestDto], description: 'pending requests the user sent, oldest first' }) requestsSent!: FriendRequestDto[];
  @ApiProperty({ type: [FriendRequestDto], description: 'pending requests to the user, oldest first' }) requestsReceived!: FriendRequestDto[];
  @ApiProperty({
    type: [BlockDto],
    description: "the user's own blocks, oldest first. Blocks of the user by others are not listed: they are the blockers' data, never told to the blocked party",
  })
  blocks!: BlockDto[];
  @ApiProperty({ type: [UserExportFriendTagDto], description: "the user's friend tags by name (byte order), then id, each with the friends it labels" })
  tags!: UserExportFriendTagDto[];
  @ApiProperty({ type: VisibilityDto }) visibility!: VisibilityDto;
}

export class UserExportReportsDto {
  @ApiProperty({ type: [ReportDto], description: 'reports the user filed, in any status; oldest first' }) filed!: ReportDto[];
  @ApiProperty({ type: [ReportDto], description: 'reports about the user, in any status, oldest first; reporterUserId is always null: who reported them is withheld' })
  about!: ReportDto[];
}

export class UserExportDto {
  @ApiProperty({ format: 'date-time', description: 'when the snapshot the whole document was read from was taken' }) exportedAt!: string;
  @ApiProperty({ format: 'uuid' }) gameId!: string;
  @ApiProperty({ description: 'the external user id exported' }) userId!: string;
  @ApiProperty({
    type: [UserExportMembershipDto],
    description: 'every membership, past and present, in any status, in live and soft-deleted groups; oldest joinedAt first',
  })
  memberships!: UserExportMembershipDto[];
  @ApiProperty({ type: [InvitationWithGroupDto], description: 'invitations targeted at the user or sent by them (invitedByUserId), used or not; oldest first' })
  invitations!: InvitationWithGroupDto[];
  @ApiProperty({ type: [JoinRequestDto], description: "the user's join requests in any status, oldest first" }) joinRequests!: JoinRequestDto[];
  @ApiProperty({ type: UserExportBansDto }) bans!: UserExportBansDto;
  @ApiProperty({ type: UserExportFriendsDto, description: 'relationships stored in this game (a network friendship made in another game is that game’s data)' })
  friends!: UserExportFriendsDto;
  @ApiProperty({ type: [AuditEntryDto], description: 'audit entries whose actor (actorUserId, the internal id) or target (targetId) is the user; oldest first' })
  audit!: AuditEntryDto[];
  @ApiProperty({
    type: [EventBodyDto],
    description:
      'retained events that name the user, in feed order, each body as webhooks received it. An event names the user when its ' +
      'internal id is anywhere in the body, or their external id is the value of a user field (a key ending in UserId, such as ' +
      'userId, targetUserId, ownerUserId, actorSvcUserId). A block of the user by someone else (friend.blocked, ' +
      'friend.unblocked) is left out: the service never tells the blocked party',
  })
  events!: EventBodyDto[];
  @ApiProperty({ type: [NotificationDto], description: "the user's notifications (EXTENSIONS X9), read or not; oldest first" })
  notifications!: NotificationDto[];
  @ApiProperty({ type: UserExportReportsDto, description: 'reports (EXTENSIONS X10) the user filed and reports about them' }) reports!: UserExportReportsDto;
}

/** What every export route says of the answer. */
export const EXPORT_DESCRIPTION =
  'For access and portability requests (GDPR articles 15 and 20). The document is read from one consistent snapshot into a ' +
  "spool on the server at the database's pace, and streamed from it at the client's: a large history starts arriving at once, " +
  'never sits whole in memory, and a slow reader holds no database connection. A user the game has never seen (no identity, ' +
  'and no invitation naming them) is 404; every error comes before the first byte. Each export is recorded as a game audit ' +
  `entry user.exported naming the user. A game has at most ${EXPORTS_IN_FLIGHT_PER_GAME} exports in flight per instance (until their last byte is read): ` +
  'one more is 429 with Retry-After. An answer cut short by a failure mid-stream is not valid JSON: parse it whole before trusting it.';

/** What the body routes add: the id is in the body, so it may be longer than a path carries. */
export const EXPORT_BY_BODY =
  'The user id is named in the body, so any id can be exported, however long: a path carries at most 16,384 characters.';

/** The 200 answer: the document, as an attachment. */
export function ApiUserExport(): MethodDecorator {
  return applyDecorators(
    ApiOkResponse({
      type: UserExportDto,
      description: 'the export document, sent as an attachment (content-disposition), streamed in chunks',
      headers: {
        'content-disposition': { description: 'attachment; filename="guildhall-user-export.json"', schema: { type: 'string' } },
      },
    }),
  );
}
