import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page';
import { IsIsoTimestamp } from '../../common/validation/is-iso-timestamp';
import { StrictBody } from '../../common/validation/validation.pipe';

/** SPEC §4 POST /v1/bans: unknown keys are rejected with 400. */
@StrictBody()
export class CreateBanDto {
  @ApiProperty({ description: 'external user id' })
  @IsString({ message: 'userId must be a non-empty string' })
  @MinLength(1, { message: 'userId must be a non-empty string' })
  userId!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 })
  @ValidateIf((o: CreateBanDto) => o.reason !== undefined && o.reason !== null)
  @IsString()
  @MaxLength(500, { message: 'reason must be at most 500 characters' })
  reason?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, format: 'date-time', description: 'null = permanent; a past value is accepted and reads as expired' })
  @ValidateIf((o: CreateBanDto) => o.expiresAt !== undefined && o.expiresAt !== null)
  @IsIsoTimestamp()
  expiresAt?: string | null;

  @ApiPropertyOptional({ description: 'external id of the moderator' })
  @IsOptional()
  @IsString({ message: 'actorUserId must be a non-empty string' })
  @MinLength(1, { message: 'actorUserId must be a non-empty string' })
  actorUserId?: string;
}

export class BanDto {
  @ApiProperty() id!: string;
  @ApiProperty() gameId!: string;
  @ApiProperty({ description: 'external user id' }) userId!: string;
  @ApiProperty({ format: 'date-time' }) bannedAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) expiresAt!: string | null;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'external id of the moderator' }) bannedBy!: string | null;
}

export class BanHistoryEntryDto {
  @ApiProperty() id!: string;
  @ApiProperty() gameId!: string;
  @ApiProperty({ description: 'external user id' }) userId!: string;
  @ApiProperty({ enum: ['game', 'group'] }) scope!: string;
  @ApiProperty({ type: String, nullable: true }) groupId!: string | null;
  @ApiProperty({ enum: ['set', 'lifted'] }) kind!: string;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) expiresAt!: string | null;
  @ApiProperty({ format: 'date-time' }) eventAt!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "external id of the moderator, as given on the ban; null when none was given, and on a lift (unlike an audit entry's actorUserId, not an internal id)",
  })
  actorUserId!: string | null;
}

const BOOL = ['true', 'false'];

export class ListBansQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: BOOL, default: 'false' })
  @IsOptional()
  @IsIn(BOOL, { message: 'includeExpired must be true or false' })
  includeExpired?: string;
}

export class BanHistoryQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['game', 'group'], description: 'default both' })
  @IsOptional()
  @IsIn(['game', 'group'], { message: 'scope must be game or group' })
  scope?: 'game' | 'group';

  @ApiPropertyOptional({ description: 'implies scope=group' })
  @IsOptional()
  @IsString()
  groupId?: string;
}

export class GroupBanDto extends CreateBanDto {}
StrictBody()(GroupBanDto);

/**
 * The body of the admin twins of POST /v1/bans and POST /v1/groups/:id/bans: the operator is who
 * bans, recorded in the operator audit, so no player is named as the moderator. Strict as theirs.
 */
export class AdminBanDto extends OmitType(CreateBanDto, ['actorUserId'] as const) {}
StrictBody()(AdminBanDto);
