import { MAX_PATH_USER_ID } from '../../users/user-id';
import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { BanDto } from '../../bans/dto/ban.dto';
import { PageQueryDto } from '../../common/pagination/page';
import { MEMBER_STATUS_DESCRIPTION } from '../../members/dto/member.dto';
import { MEMBER_STATUSES, type MemberStatus } from '../../members/member-row';
import { INTERNAL_USER_ID_EXAMPLE } from '../../openapi/examples';
import { AdminMemberRoleDto } from './admin-groups.dto';

/**
 * The longest external id the admin user page looks up: any id a path can carry, as the player's
 * export and erasure take (user ids have no length cap, SPEC §8).
 */
export const ADMIN_USER_ID_MAX = MAX_PATH_USER_ID;

/** `limit` and `cursor` of the user's memberships (the page of GET /v1/admin/games/:gameId/users/:externalUserId). */
export class AdminUserQueryDto extends PageQueryDto {}

/** One membership of the user in a group of the game, past or present. */
export class AdminUserMembershipDto {
  @ApiProperty({ description: 'the id of the member record' }) memberId!: string;
  @ApiProperty() groupId!: string;
  @ApiProperty() groupName!: string;
  @ApiProperty({ example: 'guild', description: "the group's kind" }) groupKind!: string;
  @ApiProperty({ description: 'true while the group is soft-deleted (the admin group routes answer 404 for it)' })
  groupSoftDeleted!: boolean;
  @ApiProperty({ enum: MEMBER_STATUSES, description: MEMBER_STATUS_DESCRIPTION }) status!: MemberStatus;
  @ApiProperty({ format: 'date-time', description: 'kept when the member rejoins' }) joinedAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'null while active' }) leftAt!: string | null;
  @ApiProperty({
    format: 'date-time',
    type: String,
    nullable: true,
    description: 'while banned from the group: when the ban ends (null for a ban without end); null in any other status',
  })
  bannedUntil!: string | null;
  @ApiProperty({ type: [AdminMemberRoleDto], description: 'the roles assigned, as in the admin members list: priority descending, then id descending' })
  roles!: AdminMemberRoleDto[];
}

export class AdminUserMembershipPageDto {
  @ApiProperty({ type: [AdminUserMembershipDto], description: 'joinedAt descending, then id descending' })
  items!: AdminUserMembershipDto[];
  @ApiProperty({ type: String, nullable: true, description: 'pass it as cursor for the next page of memberships; null on the last page' })
  nextCursor!: string | null;
}

/**
 * A user as the operator sees them in one game: identity, memberships, bans and the size of their
 * friends graph there. Everything is of the path's game only, even for an internal user linked
 * into several games.
 */
@ApiExtraModels(BanDto)
export class AdminUserDto {
  @ApiProperty() gameId!: string;
  @ApiProperty({ description: 'the external id of the path, as the game uses it' }) userId!: string;
  @ApiProperty({ example: INTERNAL_USER_ID_EXAMPLE, description: "the internal user id: what audit entries' actorUserId holds" })
  svcUserId!: string;
  @ApiProperty({ format: 'date-time', description: 'when the game first named this user (the identity was anchored)' })
  firstSeenAt!: string;
  @ApiProperty({
    type: AdminUserMembershipPageDto,
    description: 'memberships in groups of this game, any status, soft-deleted groups included; paged by limit and cursor',
  })
  memberships!: AdminUserMembershipPageDto;
  @ApiProperty({
    // OpenAPI 3.0 cannot make a $ref nullable: a BanDto, or the schema that only null satisfies.
    oneOf: [{ $ref: getSchemaPath(BanDto) }, { type: 'object', nullable: true, enum: [null] }],
    description: 'the game-wide ban in force, as GET /v1/bans/{userId} answers it; null when none (an expired ban is none)',
  })
  gameBan!: BanDto | null;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'group bans in force: memberships with status banned whose bannedUntil is null or still ahead (soft-deleted groups included)',
  })
  groupBans!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'friendships made in this game' }) friendsCount!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'pending friend requests the user sent' }) requestsSent!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'pending friend requests sent to the user' }) requestsReceived!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'users the user blocks' }) blocks!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'users who block the user' }) blockedBy!: number;
}
