import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Max, Min, MinLength, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page';
import { ValidatedPerRow } from '../../common/validation/validation.pipe';
import { INTERNAL_USER_ID_EXAMPLE } from '../../openapi/examples';

/** EXTENSIONS X6: who sent an invitation, as the create and bulk-invite bodies take it. */
const INVITED_BY_REQUEST_DESCRIPTION =
  'external id of the player who sends the invitation, shown as invitedByUserId on the Invitation; like the actor of ' +
  'a ban, created on first use and recorded as the audit actor. Not checked against the group: the API key authorizes';

/** EXTENSIONS X4: an open code may be accepted by up to this many users. */
export const MAX_USES = 10_000;
const MAX_USES_MESSAGE = `maxUses must be an integer from 1 to ${MAX_USES}`;

export class CreateInvitationDto {
  @ApiPropertyOptional({ description: 'external user id; omit for an open code' })
  @IsOptional()
  @IsString({ message: 'targetUserId must be a non-empty string' })
  @MinLength(1, { message: 'targetUserId must be a non-empty string' })
  targetUserId?: string;

  @ApiPropertyOptional({ description: 'a hint only: not validated, not applied on accept' })
  @IsOptional()
  @IsString()
  roleId?: string;

  @ApiPropertyOptional({ description: INVITED_BY_REQUEST_DESCRIPTION })
  @IsOptional()
  @IsString({ message: 'invitedByUserId must be a non-empty string' })
  @MinLength(1, { message: 'invitedByUserId must be a non-empty string' })
  invitedByUserId?: string;

  @ApiPropertyOptional({ example: '7d', description: 'a positive integer followed by s, m, h or d' })
  @IsOptional()
  @IsString({ message: 'expiresIn must be a string such as 30m or 7d' })
  expiresIn?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_USES,
    default: 1,
    description: 'open codes only: how many users may accept it before it is used up',
  })
  @ValidateIf((o: CreateInvitationDto) => o.maxUses !== undefined)
  @IsInt({ message: MAX_USES_MESSAGE })
  @Min(1, { message: MAX_USES_MESSAGE })
  @Max(MAX_USES, { message: MAX_USES_MESSAGE })
  maxUses?: number;
}

export class InvitationDto {
  @ApiProperty() id!: string;
  @ApiProperty() groupId!: string;
  @ApiProperty({ example: '3f9c2a71d04b8e65', description: '16 hex characters' }) code!: string;
  @ApiProperty({ type: String, nullable: true }) roleId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'null = open code' }) targetUserId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'external id of who sent it, as given on create or bulk invite; null when not given' })
  invitedByUserId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'always null; invitedByUserId names who sent the invitation' })
  createdBy!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) expiresAt!: string | null;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'set when the code is used up: declined, or accepted maxUses times' })
  usedAt!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: INTERNAL_USER_ID_EXAMPLE,
    description:
      'the internal user id (a uuid, not the external id your game uses) of whoever used the code up: the accept that ' +
      'reached maxUses, or the decline; null while the code is usable, and after a decline without userId or by a user ' +
      'the game has never seen. It stays the internal id for compatibility with existing clients; targetUserId names a ' +
      "targeted code's user by external id",
  })
  usedBy!: string | null;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_USES, description: 'accepts the code allows; 1 unless created with more' })
  maxUses!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'accepts so far' }) uses!: number;
}

/** What an invitation is for (EXTENSIONS X6), so a client can show it without reading the group. */
export class InvitationGroupDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() kind!: string;
}

/** The Invitation of the public preview and the inbox, with its group (EXTENSIONS X6). */
export class InvitationWithGroupDto extends InvitationDto {
  @ApiProperty({ type: InvitationGroupDto, description: 'the group the invitation is for' }) group!: InvitationGroupDto;
}

const BOOL = ['true', 'false'];

export class ListInvitationsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: BOOL, default: 'false' })
  @IsOptional()
  @IsIn(BOOL, { message: 'includeExpired must be true or false' })
  includeExpired?: string;

  @ApiPropertyOptional({ enum: BOOL, default: 'false' })
  @IsOptional()
  @IsIn(BOOL, { message: 'includeUsed must be true or false' })
  includeUsed?: string;
}

export class AcceptInvitationDto {
  @ApiProperty({ description: 'external user id of the redeemer' })
  @IsString({ message: 'userId must be a non-empty string' })
  @MinLength(1, { message: 'userId must be a non-empty string' })
  userId!: string;
}

export class DeclineInvitationDto {
  @ApiPropertyOptional({ description: 'must match the target of a direct invitation' })
  @IsOptional()
  @IsString({ message: 'userId must be a non-empty string' })
  @MinLength(1, { message: 'userId must be a non-empty string' })
  userId?: string;
}

/** SPEC §8: a bulk invite takes at most this many rows, malformed ones included. */
export const BULK_INVITE_MAX_ROWS = 1000;

@ValidatedPerRow('rows')
export class BulkInviteDto {
  @ApiProperty({
    type: 'array',
    maxItems: BULK_INVITE_MAX_ROWS,
    items: {
      type: 'object',
      properties: { userId: { type: 'string', maxLength: 255 }, roleId: { type: 'string' }, expiresIn: { type: 'string', example: '7d' } },
      required: ['userId'],
    },
    description: 'one targeted invitation per row; malformed rows come back as per-row errors',
  })
  @IsArray({ message: 'rows must be an array' })
  @ArrayMaxSize(BULK_INVITE_MAX_ROWS, { message: `rows must hold at most ${BULK_INVITE_MAX_ROWS} entries` })
  rows!: unknown[];

  @ApiPropertyOptional({ description: `${INVITED_BY_REQUEST_DESCRIPTION}; the same for every row` })
  @IsOptional()
  @IsString({ message: 'invitedByUserId must be a non-empty string' })
  @MinLength(1, { message: 'invitedByUserId must be a non-empty string' })
  invitedByUserId?: string;
}

export class BulkInviteErrorDto {
  @ApiProperty() code!: string;
  @ApiProperty() message!: string;
}

export class BulkInviteResultDto {
  @ApiProperty({ description: 'position of the row in the request, from 0' }) index!: number;
  @ApiPropertyOptional() userId?: string;
  @ApiPropertyOptional({ type: InvitationDto }) invitation?: InvitationDto;
  @ApiPropertyOptional({ type: BulkInviteErrorDto }) error?: BulkInviteErrorDto;
}

export class BulkInviteResponseDto {
  @ApiProperty({ type: [BulkInviteResultDto], description: 'in row order' }) results!: BulkInviteResultDto[];
}
