import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { VISIBILITIES, type Visibility } from '../../groups/group-row';
import { MEMBER_STATUS_DESCRIPTION, MEMBER_STATUS_FILTER_DESCRIPTION } from '../../members/dto/member.dto';
import { MEMBER_STATUSES, type MemberStatus } from '../../members/member-row';
import { INTERNAL_USER_ID_EXAMPLE } from '../../openapi/examples';

export const ADMIN_GROUP_SORTS = ['createdAt', 'name', 'memberCount'] as const;
export type AdminGroupSort = (typeof ADMIN_GROUP_SORTS)[number];
export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];
export const ADMIN_MEMBER_STATUSES = [...MEMBER_STATUSES, 'all'] as const;
export type AdminMemberStatus = MemberStatus | 'all';

/** `limit` and `offset` of an offset-based admin list; checked by the page rules, not here. */
export class OffsetQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0 })
  @IsOptional()
  @IsString()
  offset?: string;
}

export class AdminGroupsQueryDto extends OffsetQueryDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 120, description: 'case-insensitive substring of the name' })
  @IsOptional()
  @IsString({ message: 'q must be a string of 1-120 characters' })
  @Length(1, 120, { message: 'q must be a string of 1-120 characters' })
  q?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 64, description: 'exact match' })
  @IsOptional()
  @IsString({ message: 'kind must be a string of 1-64 characters' })
  @Length(1, 64, { message: 'kind must be a string of 1-64 characters' })
  kind?: string;

  @ApiPropertyOptional({ enum: VISIBILITIES })
  @IsOptional()
  @IsIn(VISIBILITIES, { message: `visibility must be one of ${VISIBILITIES.join(', ')}` })
  visibility?: Visibility;

  @ApiPropertyOptional({ enum: ADMIN_GROUP_SORTS, default: 'createdAt', description: 'memberCount: at most 500 matching groups' })
  @IsOptional()
  @IsIn(ADMIN_GROUP_SORTS, { message: `sort must be one of ${ADMIN_GROUP_SORTS.join(', ')}` })
  sort?: AdminGroupSort;

  @ApiPropertyOptional({ enum: SORT_ORDERS, default: 'desc' })
  @IsOptional()
  @IsIn(SORT_ORDERS, { message: `order must be one of ${SORT_ORDERS.join(', ')}` })
  order?: SortOrder;
}

/** WireAdminGroup (SPEC §4 Admin surface). */
export class AdminGroupDto {
  @ApiProperty() id!: string;
  @ApiProperty() gameId!: string;
  @ApiProperty() kind!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: VISIBILITIES }) visibility!: Visibility;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true }) defaultRoleId!: string | null;
  @ApiProperty({ type: String, nullable: true }) parentGroupId!: string | null;
  @ApiProperty({ type: [String], description: 'what players find the group by' }) tags!: string[];
  @ApiProperty({ type: Number, nullable: true, description: 'the most active members the group admits; null for no cap' }) maxMembers!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'external id of the owner; null when the group has none' }) ownerUserId!: string | null;
  @ApiProperty({ description: 'active members, at request time' }) memberCount!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class AdminGroupListDto {
  @ApiProperty({ type: [AdminGroupDto] }) items!: AdminGroupDto[];
  @ApiProperty({ description: 'matching groups before pagination' }) total!: number;
  @ApiProperty({ description: 'offset + items.length < total' }) hasMore!: boolean;
}

export class AdminMembersQueryDto extends OffsetQueryDto {
  @ApiPropertyOptional({ enum: ADMIN_MEMBER_STATUSES, default: 'active', description: `${MEMBER_STATUS_FILTER_DESCRIPTION}; all = every status` })
  @IsOptional()
  @IsIn(ADMIN_MEMBER_STATUSES, { message: `status must be one of ${ADMIN_MEMBER_STATUSES.join(', ')}` })
  status?: AdminMemberStatus;

  @ApiPropertyOptional({ minLength: 1, maxLength: 255, description: 'case-insensitive substring of the external user id' })
  @IsOptional()
  @IsString({ message: 'q must be a string of 1-255 characters' })
  @Length(1, 255, { message: 'q must be a string of 1-255 characters' })
  q?: string;
}

export class AdminMemberRoleDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() priority!: number;
  @ApiProperty({ type: String, nullable: true }) color!: string | null;
  @ApiProperty() isDefault!: boolean;
}

export class AdminMemberDto {
  @ApiProperty() id!: string;
  @ApiProperty() groupId!: string;
  @ApiProperty({ description: 'the user id the game uses (the userId of game routes)' }) externalUserId!: string;
  @ApiProperty({
    example: INTERNAL_USER_ID_EXAMPLE,
    description: "the internal user id: what an audit entry's actorUserId and an invitation's usedBy hold, and what identity links and GET /v1/users/{svcUserId}/games take",
  })
  svcUserId!: string;
  @ApiProperty({ enum: MEMBER_STATUSES, description: MEMBER_STATUS_DESCRIPTION }) status!: MemberStatus;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true }) notesPublic!: string | null;
  @ApiProperty({ type: String, nullable: true }) notesPrivate!: string | null;
  @ApiProperty({ format: 'date-time' }) joinedAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'null while active' }) leftAt!: string | null;
  @ApiProperty({
    format: 'date-time',
    type: String,
    nullable: true,
    description: 'while banned from the group: when the ban ends (null for a ban without end); null in any other status',
  })
  bannedUntil!: string | null;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'when the timeout in force ends; null when none is in force' })
  timedOutUntil!: string | null;
  @ApiProperty({ type: [AdminMemberRoleDto], description: 'priority descending, then id descending' }) roles!: AdminMemberRoleDto[];
}

export class AdminMemberListDto {
  @ApiProperty({ type: [AdminMemberDto] }) items!: AdminMemberDto[];
  @ApiProperty({ description: 'matching members before pagination' }) total!: number;
  @ApiProperty({ description: 'offset + items.length < total' }) hasMore!: boolean;
}
