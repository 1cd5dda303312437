import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page';
import { oneOfParam, PAGE_PARAMS, queryParser, stringParam } from '../../common/validation/query-parser';
import { ValidatedBy } from '../../common/validation/validation.pipe';
import { MEMBER_STATUSES, type MemberStatus } from '../member-row';

/** What the status values mean, `invited` above all: a value of the model that the service never sets. */
export const MEMBER_STATUS_DESCRIPTION =
  'active, left, kicked or banned. invited is reserved and never set by Guildhall: an invited user holds an ' +
  'Invitation (listed by GET /v1/groups/{id}/invitations) and becomes an active member on accept';
export const MEMBER_STATUS_FILTER_DESCRIPTION = 'only members in this status; invited matches no member Guildhall made, since it never sets that status';

export class RoleGrantDto {
  @ApiProperty() roleId!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'when the assignment ends; null: permanent' })
  expiresAt!: string | null;
}

export class MemberDto {
  @ApiProperty() id!: string;
  @ApiProperty() groupId!: string;
  @ApiProperty({ description: 'the external user id' }) userId!: string;
  @ApiProperty({ enum: MEMBER_STATUSES, description: MEMBER_STATUS_DESCRIPTION }) status!: MemberStatus;
  @ApiProperty({ type: [String], description: 'ids of the roles assigned' }) roles!: string[];
  @ApiProperty({ type: [RoleGrantDto], description: 'the same assignments, in the same order, each with its expiry' }) roleGrants!: RoleGrantDto[];
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true }) notesPublic!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'meant for officers, but returned on every read like notesPublic: keep it from players in your backend',
  })
  notesPrivate!: string | null;
  @ApiProperty({ format: 'date-time', description: 'kept when the member rejoins' }) joinedAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'set on leave, kick, or a ban of an active member; cleared on rejoin' })
  leftAt!: string | null;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'only while banned: null = permanent' })
  bannedUntil!: string | null;
  @ApiProperty({
    format: 'date-time',
    type: String,
    nullable: true,
    description: 'when the timeout in force ends (POST /v1/groups/{id}/members/{userId}/timeout); null when none is in force',
  })
  timedOutUntil!: string | null;
}

export class UserIdBodyDto {
  @ApiProperty({ description: 'external user id' })
  @IsString({ message: 'userId must be a non-empty string' })
  @MinLength(1, { message: 'userId must be a non-empty string' })
  userId!: string;
}

export class JoinGroupDto extends UserIdBodyDto {
  @ApiPropertyOptional({ type: String, nullable: true, description: 'required when the group has a passcode' })
  @IsOptional()
  @IsString({ message: 'passcode must be a string' })
  passcode?: string | null;
}

export class KickDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500, description: 'lands on the audit payload' })
  @ValidateIf((o: KickDto) => o.reason !== undefined && o.reason !== null)
  @IsString({ message: 'reason must be a string of at most 500 characters, or null' })
  @MaxLength(500, { message: 'reason must be a string of at most 500 characters, or null' })
  reason?: string | null;
}

export class UpdateMemberDto {
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'replaces the metadata wholesale' })
  @ValidateIf((o: UpdateMemberDto) => o.metadata !== undefined)
  @IsObject({ message: 'metadata must be a JSON object' })
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 5000 })
  @ValidateIf((o: UpdateMemberDto) => o.notesPublic !== undefined && o.notesPublic !== null)
  @IsString()
  @MaxLength(5000, { message: 'notesPublic must be at most 5000 characters' })
  notesPublic?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 5000 })
  @ValidateIf((o: UpdateMemberDto) => o.notesPrivate !== undefined && o.notesPrivate !== null)
  @IsString()
  @MaxLength(5000, { message: 'notesPrivate must be at most 5000 characters' })
  notesPrivate?: string | null;
}

/** The member list's query, checked by hand (queryParser): the list is a hot read. */
const parseListMembersQuery = queryParser<ListMembersQueryDto>([
  oneOfParam('status', [...MEMBER_STATUSES, 'all'], { optional: true }),
  stringParam('permission', { optional: true, min: 1, max: 128, message: 'permission must be 1-128 characters' }),
  ...PAGE_PARAMS,
]);

@ValidatedBy(parseListMembersQuery)
export class ListMembersQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: [...MEMBER_STATUSES, 'all'], default: 'all', description: MEMBER_STATUS_FILTER_DESCRIPTION })
  status?: MemberStatus | 'all';

  @ApiPropertyOptional({ minLength: 1, maxLength: 128, description: 'only the active members allowed this key now, as the permission check answers (EXTENSIONS X8)' })
  permission?: string;
}

export class UserMembersQueryDto {
  @ApiPropertyOptional({ description: 'must equal the calling game' })
  @IsOptional()
  @IsString()
  gameId?: string;
}
