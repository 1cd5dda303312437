import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { AUDIT_ACTIONS } from '../../audit/audit-actions';
import { AUDIT_ACTOR_DESCRIPTION, AUDIT_TARGET_DESCRIPTION } from '../../audit/dto/audit.dto';
import { INTERNAL_USER_ID_EXAMPLE } from '../../openapi/examples';

/** `GET /v1/admin/stats` (SPEC §4 Admin surface). */
export class AdminStatsDto {
  @ApiProperty({ description: 'every game' }) totalGames!: number;
  @ApiProperty({ description: 'groups that are not soft-deleted' }) totalGroups!: number;
  @ApiProperty({ description: 'active members of groups that are not soft-deleted' }) totalActiveMembers!: number;
  @ApiProperty({ description: 'audit entries of the last 24 hours, soft-deleted groups included' })
  totalAuditEntriesLast24h!: number;
}

export class UserGameDto {
  @ApiProperty() gameId!: string;
  @ApiProperty({ description: 'the external id of the user in that game' }) externalUserId!: string;
  @ApiProperty({ description: 'active memberships in groups that are not soft-deleted' }) joinedGroupCount!: number;
}

/** `GET /v1/users/:svcUserId/games`: every game the internal user has an identity in. */
export class UserGamesDto {
  @ApiProperty({ example: INTERNAL_USER_ID_EXAMPLE, description: 'the internal user id of the path (not an external id)' }) svcUserId!: string;
  @ApiProperty({ type: [UserGameDto], description: 'gameId ascending; [] for a user with no identity' })
  games!: UserGameDto[];
}

/** An audit entry as the operator sees it, with the names of its game and group. */
export class AdminAuditItemDto {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: AUDIT_ACTIONS }) action!: string;
  @ApiProperty() gameId!: string;
  @ApiProperty() gameName!: string;
  @ApiProperty({ type: String, nullable: true, description: 'null for game-wide actions (bans, config, links)' })
  groupId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'null when groupId is null' }) groupName!: string | null;
  @ApiProperty({ description: 'true while the group is soft-deleted; false when there is no group' })
  groupSoftDeleted!: boolean;
  @ApiProperty({ type: String, nullable: true, example: INTERNAL_USER_ID_EXAMPLE, description: AUDIT_ACTOR_DESCRIPTION })
  actorUserId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: AUDIT_TARGET_DESCRIPTION })
  targetId!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) payload!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class AdminAuditListDto {
  @ApiProperty({ type: [AdminAuditItemDto] }) items!: AdminAuditItemDto[];
}

export class AdminAuditPageDto {
  @ApiProperty({ type: [AdminAuditItemDto] }) items!: AdminAuditItemDto[];
  @ApiProperty({ type: String, nullable: true, description: 'the id of the last item when more remain; pass it as before' })
  nextCursor!: string | null;
}

export class AdminAuditQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 20, description: 'up to the page cap (SVC_MAX_PAGE_SIZE)' })
  @IsOptional()
  @IsString()
  limit?: string;
}

/** Filters of the admin audit searches; all optional and AND-combined. */
export class AdminAuditSearchQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'a previous nextCursor (entry id), or an ISO 8601 timestamp as exclusive upper bound on createdAt' })
  @IsOptional()
  @IsString({ message: 'before must be a single value' })
  before?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'inclusive lower bound on createdAt' })
  @IsOptional()
  @IsString({ message: 'since must be a single ISO 8601 timestamp' })
  since?: string;

  @ApiPropertyOptional({ type: [String], enum: AUDIT_ACTIONS, description: 'repeatable; OR-combined; unknown values are 400' })
  @IsOptional()
  actions?: string | string[];

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 255,
    example: INTERNAL_USER_ID_EXAMPLE,
    description: "exact match on the entries' actorUserId, an internal user id (not an external id); a value that is not a uuid matches nothing",
  })
  @IsOptional()
  @IsString({ message: 'actorUserId must be a string of 1-255 characters' })
  @Length(1, 255, { message: 'actorUserId must be a string of 1-255 characters' })
  actorUserId?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 255, description: 'exact match on the stored targetId' })
  @IsOptional()
  @IsString({ message: 'targetId must be a string of 1-255 characters' })
  @Length(1, 255, { message: 'targetId must be a string of 1-255 characters' })
  targetId?: string;
}
