import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { INTERNAL_USER_ID_EXAMPLE } from '../../openapi/examples';
import { AUDIT_ACTIONS } from '../audit-actions';

/** Shared by the game's and the operator's audit entries: what actorUserId and targetId hold. */
export const AUDIT_ACTOR_DESCRIPTION =
  'the internal user id (a uuid, not the external id your game uses) of who acted, when known: the joiner of ' +
  'member.joined, the member who left, the user asking for or cancelling a join request, the actorUserId given ' +
  'to a ban or a join request decision, and the invitedByUserId given to an invitation (member.invited); null ' +
  "otherwise. It stays the internal id for compatibility with existing clients; the operator's members list shows " +
  'it as svcUserId beside the externalUserId';
export const AUDIT_TARGET_DESCRIPTION =
  'depending on the action: an external user id, a role id, the group id, a webhook id (webhook.*) or the game id ' +
  '(game.config.updated); null when there is none (an open invitation)';

export class AuditEntryDto {
  @ApiProperty() id!: string;
  @ApiPropertyOptional({ description: 'absent for game-wide actions' }) groupId?: string;
  @ApiProperty({ type: String, nullable: true, example: INTERNAL_USER_ID_EXAMPLE, description: AUDIT_ACTOR_DESCRIPTION })
  actorUserId!: string | null;
  @ApiProperty({ enum: AUDIT_ACTIONS }) action!: string;
  @ApiProperty({ type: String, nullable: true, description: AUDIT_TARGET_DESCRIPTION }) targetId!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) payload!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class GroupAuditQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 50, description: 'up to the page cap' })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'the previous nextCursor (an entry id), or an ISO 8601 timestamp (exclusive)' })
  @IsOptional()
  @IsString()
  before?: string;

  @ApiPropertyOptional({ type: [String], enum: AUDIT_ACTIONS, description: 'repeatable; OR-combined' })
  @IsOptional()
  actions?: string | string[];
}
