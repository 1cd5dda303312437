import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, Min, MinLength, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page';
import { MAX_MEMBERS_CAP, MAX_TAGS, TAG_PATTERN, VISIBILITIES, type Visibility } from '../group-row';

const notNull = (field: string) => (o: Record<string, unknown>) => o[field] !== undefined && o[field] !== null;

const TAGS_DOC: ApiPropertyOptions & { description: string } = {
  type: 'array',
  maxItems: MAX_TAGS,
  uniqueItems: true,
  items: { type: 'string', pattern: TAG_PATTERN.source, minLength: 1, maxLength: 32 },
  example: ['lang:en', 'region:eu', 'casual'],
  description: `what players find the group by (GET /v1/groups/search): at most ${MAX_TAGS} distinct tags of 1-32 characters of a-z, 0-9, ":", "_" and "-"`,
};
const TAGS_MESSAGE = `tags must be a list of at most ${MAX_TAGS} distinct tags of 1-32 characters of a-z, 0-9, ":", "_" and "-"`;
const MAX_MEMBERS_DOC: ApiPropertyOptions = {
  type: Number,
  nullable: true,
  minimum: 1,
  maximum: MAX_MEMBERS_CAP,
  description: `the most active members the group admits (1-${MAX_MEMBERS_CAP}); null for no cap. An admission past it is 409 group_full; lowering it removes nobody`,
};
const MAX_MEMBERS_MESSAGE = `maxMembers must be an integer from 1 to ${MAX_MEMBERS_CAP}, or null`;

/** The validation of `tags` on create and update. */
function Tags(): PropertyDecorator {
  return (target, key) => {
    for (const d of [
      IsArray({ message: TAGS_MESSAGE }),
      ArrayMaxSize(MAX_TAGS, { message: TAGS_MESSAGE }),
      ArrayUnique({ message: TAGS_MESSAGE }),
      IsString({ each: true, message: TAGS_MESSAGE }),
      Matches(TAG_PATTERN, { each: true, message: TAGS_MESSAGE }),
    ]) {
      d(target, key);
    }
  };
}

/** The validation of `maxMembers`: an integer in range, or null. */
function MaxMembers(): PropertyDecorator {
  return (target, key) => {
    for (const d of [
      ValidateIf(notNull(String(key))),
      IsInt({ message: MAX_MEMBERS_MESSAGE }),
      Min(1, { message: MAX_MEMBERS_MESSAGE }),
      Max(MAX_MEMBERS_CAP, { message: MAX_MEMBERS_MESSAGE }),
    ]) {
      d(target, key);
    }
  };
}

export class CreateGroupDto {
  @ApiProperty({ minLength: 1, maxLength: 64, example: 'guild', description: 'free string, stored verbatim' })
  @IsString()
  @Length(1, 64, { message: 'kind must be a string of 1-64 characters' })
  kind!: string;

  @ApiProperty({ minLength: 1, maxLength: 120, example: 'Knights of Dawn' })
  @IsString()
  @Length(1, 120, { message: 'name must be a string of 1-120 characters' })
  name!: string;

  @ApiPropertyOptional({ enum: VISIBILITIES, default: 'invite-only' })
  @IsOptional()
  @IsIn(VISIBILITIES, { message: `visibility must be one of ${VISIBILITIES.join(', ')}` })
  visibility?: Visibility;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, default: {} })
  @IsOptional()
  @IsObject({ message: 'metadata must be a JSON object' })
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'role given to new members; existence is not verified' })
  @ValidateIf(notNull('defaultRoleId'))
  @IsString()
  @MinLength(1)
  defaultRoleId?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, minLength: 4, maxLength: 128, description: 'gates public join; stored hashed, never returned' })
  @IsOptional()
  @IsString()
  @Length(4, 128, { message: 'passcode must be a string of 4-128 characters' })
  passcode?: string | null;

  @ApiPropertyOptional({ ...TAGS_DOC, default: [] })
  @IsOptional()
  @Tags()
  tags?: string[];

  @ApiPropertyOptional({ ...MAX_MEMBERS_DOC, default: null })
  @MaxMembers()
  maxMembers?: number | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'external user id; becomes an active member in the same transaction, and the group\'s owner' })
  @IsOptional()
  @IsString()
  @MinLength(1, { message: 'creatorUserId must be a non-empty string' })
  creatorUserId?: string | null;
}

export class UpdateGroupDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 120 })
  @ValidateIf((o: UpdateGroupDto) => o.name !== undefined)
  @IsString()
  @Length(1, 120, { message: 'name must be a string of 1-120 characters' })
  name?: string;

  @ApiPropertyOptional({ enum: VISIBILITIES })
  @ValidateIf((o: UpdateGroupDto) => o.visibility !== undefined)
  @IsIn(VISIBILITIES, { message: `visibility must be one of ${VISIBILITIES.join(', ')}` })
  visibility?: Visibility;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'replaces the metadata wholesale' })
  @ValidateIf((o: UpdateGroupDto) => o.metadata !== undefined)
  @IsObject({ message: 'metadata must be a JSON object' })
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ type: String, nullable: true })
  @ValidateIf(notNull('defaultRoleId'))
  @IsString()
  @MinLength(1)
  defaultRoleId?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, minLength: 4, maxLength: 128, description: 'a string sets it, null clears it' })
  @ValidateIf(notNull('passcode'))
  @IsString()
  @Length(4, 128, { message: 'passcode must be a string of 4-128 characters' })
  passcode?: string | null;

  @ApiPropertyOptional({ ...TAGS_DOC, description: `${TAGS_DOC.description}; replaces the tags wholesale` })
  @ValidateIf((o: UpdateGroupDto) => o.tags !== undefined)
  @Tags()
  tags?: string[];

  @ApiPropertyOptional(MAX_MEMBERS_DOC)
  @MaxMembers()
  maxMembers?: number | null;
}

export class SetParentDto {
  @ApiProperty({ type: String, nullable: true, description: 'the new parent group, or null to make the group a root' })
  @ValidateIf((o: SetParentDto) => o.parentGroupId !== null)
  @IsString({ message: 'parentGroupId must be a group id or null' })
  parentGroupId!: string | null;
}

export class GroupDto {
  @ApiProperty() id!: string;
  @ApiProperty() gameId!: string;
  @ApiProperty() kind!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: VISIBILITIES }) visibility!: Visibility;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true }) defaultRoleId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the parent group, or null for a top-level group' }) parentGroupId!: string | null;
  @ApiProperty({ type: 'array', items: { type: 'string' }, example: ['lang:en', 'casual'], description: 'what players find the group by' }) tags!: string[];
  @ApiProperty({ type: Number, nullable: true, description: 'the most active members the group admits; null for no cap' }) maxMembers!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'external id of the owner, an active member: the creator, or whom POST /v1/groups/{id}/owner named; null when the group has none',
  })
  ownerUserId!: string | null;
  @ApiProperty({ description: 'active members, at request time' }) memberCount!: number;
  @ApiProperty() hasPasscode!: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) softDeletedAt!: string | null;
}

export class ViewerQueryDto {
  @ApiPropertyOptional({ description: 'external user id: secret groups are hidden unless they are an active member' })
  @IsOptional()
  @IsString()
  viewer?: string;
}

export class ListGroupsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'must equal the calling game' })
  @IsOptional()
  @IsString()
  gameId?: string;

  @ApiPropertyOptional({ description: 'external user id: secret groups are hidden unless they are an active member' })
  @IsOptional()
  @IsString()
  viewer?: string;
}

export class DeleteGroupQueryDto {
  @ApiPropertyOptional({ description: 'only the literal "true" hard-deletes' })
  @IsOptional()
  @IsString()
  hard?: string;
}

/** EXTENSIONS X6: POST /v1/groups/:id/owner. */
export class SetOwnerDto {
  @ApiProperty({ description: 'external id of an active member, who becomes the owner', example: 'player-2077' })
  @IsString({ message: 'userId must be a non-empty string' })
  @MinLength(1, { message: 'userId must be a non-empty string' })
  userId!: string;

  @ApiPropertyOptional({ description: 'external id of whoever made the change, for the audit entry' })
  @IsOptional()
  @IsString({ message: 'actorUserId must be a non-empty string' })
  @MinLength(1, { message: 'actorUserId must be a non-empty string' })
  actorUserId?: string;
}
