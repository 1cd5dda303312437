import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { AUDIT_ACTIONS } from '../audit-actions';

export class AuditEntryDto {
  @ApiProperty() id!: string;
  @ApiPropertyOptional({ description: 'absent for game-wide actions' }) groupId?: string;
  @ApiProperty({ type: String, nullable: true, description: 'internal user id of the actor when known' }) actorUserId!: string | null;
  @ApiProperty({ enum: AUDIT_ACTIONS }) action!: string;
  @ApiProperty({ type: String, nullable: true }) targetId!: string | null;
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
