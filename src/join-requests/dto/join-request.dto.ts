import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page';
import { MemberDto } from '../../members/dto/member.dto';
import { JOIN_REQUEST_STATUSES, type JoinRequestStatus } from '../join-request-row';

/** EXTENSIONS X3: a request's message, and a decline's reason, are at most this long. */
export const JOIN_REQUEST_TEXT_MAX = 500;

export class JoinRequestDto {
  @ApiProperty() id!: string;
  @ApiProperty() groupId!: string;
  @ApiProperty({ description: 'the external id of the user asking to join' }) userId!: string;
  @ApiProperty({ type: String, nullable: true, maxLength: JOIN_REQUEST_TEXT_MAX }) message!: string | null;
  @ApiProperty({ enum: JOIN_REQUEST_STATUSES }) status!: JoinRequestStatus;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'when it stopped being pending' })
  decidedAt!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'external id of who closed it: the actorUserId of an approval or decline, the requester for a cancel; null when not given or closed by the service',
  })
  decidedByUserId!: string | null;
}

export class CreateJoinRequestDto {
  @ApiProperty({ description: 'external id of the user asking to join' })
  @IsString({ message: 'userId must be a non-empty string' })
  @MinLength(1, { message: 'userId must be a non-empty string' })
  userId!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: JOIN_REQUEST_TEXT_MAX, description: 'shown to whoever decides' })
  @ValidateIf((o: CreateJoinRequestDto) => o.message !== undefined && o.message !== null)
  @IsString({ message: `message must be a string of at most ${JOIN_REQUEST_TEXT_MAX} characters, or null` })
  @MaxLength(JOIN_REQUEST_TEXT_MAX, { message: `message must be a string of at most ${JOIN_REQUEST_TEXT_MAX} characters, or null` })
  message?: string | null;
}

export class ApproveJoinRequestDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'external id of the officer deciding (created on first use); recorded as decidedByUserId and audit actor; null or omitted records nobody',
  })
  @IsOptional()
  @IsString({ message: 'actorUserId must be a non-empty string' })
  @MinLength(1, { message: 'actorUserId must be a non-empty string' })
  actorUserId?: string | null;
}

export class DeclineJoinRequestDto extends ApproveJoinRequestDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: JOIN_REQUEST_TEXT_MAX, description: 'lands on the audit payload and the event' })
  @ValidateIf((o: DeclineJoinRequestDto) => o.reason !== undefined && o.reason !== null)
  @IsString({ message: `reason must be a string of at most ${JOIN_REQUEST_TEXT_MAX} characters, or null` })
  @MaxLength(JOIN_REQUEST_TEXT_MAX, { message: `reason must be a string of at most ${JOIN_REQUEST_TEXT_MAX} characters, or null` })
  reason?: string | null;
}

/** The admin twin's decline: the operator decides (operator audit), so no player is named. */
export class AdminDeclineJoinRequestDto extends OmitType(DeclineJoinRequestDto, ['actorUserId'] as const) {}

export class ApprovedJoinRequestDto {
  @ApiProperty({ type: JoinRequestDto }) joinRequest!: JoinRequestDto;
  @ApiProperty({ type: MemberDto, description: 'the new active member' }) member!: MemberDto;
}

const FILTERS = [...JOIN_REQUEST_STATUSES, 'all'] as const;
export type JoinRequestFilter = (typeof FILTERS)[number];
const FILTER_MESSAGE = `status must be one of ${FILTERS.join(', ')}`;

export class ListGroupJoinRequestsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: FILTERS, default: 'pending' })
  @IsOptional()
  @IsIn(FILTERS, { message: FILTER_MESSAGE })
  status?: JoinRequestFilter;
}

export class ListUserJoinRequestsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: FILTERS, default: 'all' })
  @IsOptional()
  @IsIn(FILTERS, { message: FILTER_MESSAGE })
  status?: JoinRequestFilter;
}
