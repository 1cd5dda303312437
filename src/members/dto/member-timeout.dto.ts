import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';

const REASON = 'reason must be a string of at most 500 characters, or null';

/** The optional body of DELETE /v1/groups/:id/members/:userId/timeout, and what a timeout takes besides its duration. */
export class LiftTimeoutDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500, description: 'lands on the audit entry and the event' })
  @ValidateIf((o: LiftTimeoutDto) => o.reason !== undefined && o.reason !== null)
  @IsString({ message: REASON })
  @MaxLength(500, { message: REASON })
  reason?: string | null;

  @ApiPropertyOptional({ description: 'external id of the moderator: the audit entry names them as its actor' })
  @IsOptional()
  @IsString({ message: 'actorUserId must be a non-empty string' })
  @MinLength(1, { message: 'actorUserId must be a non-empty string' })
  actorUserId?: string;
}

/** POST /v1/groups/:id/members/:userId/timeout (EXTENSIONS X10): the lift's fields and the duration. */
export class TimeoutMemberDto extends LiftTimeoutDto {
  @ApiProperty({ example: '1h', description: 'how long the timeout lasts: a positive integer then s, m, h or d, at most 28d; replaces the end of one in force' })
  @IsString({ message: 'duration must be a string such as 10m, 1h or 7d' })
  duration!: string;
}

/** The admin twins' bodies: the operator is who acts, recorded in the operator audit, so no player is named as the moderator. */
export class AdminTimeoutMemberDto extends OmitType(TimeoutMemberDto, ['actorUserId'] as const) {}
export class AdminLiftTimeoutDto extends OmitType(LiftTimeoutDto, ['actorUserId'] as const) {}
