import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page';
import { NOTIFICATION_KINDS, type NotificationKind } from '../notification-kinds';

export class NotificationGroupDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: "the group's kind, as stored" }) kind!: string;
}

/**
 * What a screen shows without another call (EXTENSIONS X9). Each kind carries the fields that
 * concern it; the others are absent.
 */
export class NotificationDataDto {
  @ApiPropertyOptional({ type: NotificationGroupDto, description: 'the group, as it was when the notification was written; every kind but the friends ones' })
  group?: NotificationGroupDto;

  @ApiPropertyOptional({ description: 'invitation.received: the invitation' }) invitationId?: string;
  @ApiPropertyOptional({ example: '3f9c2a71d04b8e65', description: 'invitation.received: the code to accept or decline' }) code?: string;
  @ApiPropertyOptional({
    format: 'date-time',
    type: String,
    nullable: true,
    description: 'invitation.received: when the invitation expires (null: never); member.banned: when the ban ends (null: permanent); member.roles_changed: when an assigned role ends (null: permanent)',
  })
  expiresAt?: string | null;

  @ApiPropertyOptional({ description: 'join_request.approved / declined: the request' }) joinRequestId?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: "join_request.approved / declined: the request's message" }) message?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'join_request.declined, member.kicked, member.banned: the reason given' }) reason?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'member.roles_changed: the role; invitation.received: the role hinted by the invitation' }) roleId?: string | null;
  @ApiPropertyOptional({ enum: ['assigned', 'removed'], description: 'member.roles_changed: whether the role was assigned or removed' }) change?: 'assigned' | 'removed';

  @ApiPropertyOptional({ type: String, nullable: true, description: 'friend.request.received: the request to accept or decline; null when the game accepts requests at once' })
  requestId?: string | null;
  @ApiPropertyOptional({ enum: ['pending', 'accepted'], description: 'friend.request.received: pending, or accepted at once (the game requires no acceptance)' })
  status?: 'pending' | 'accepted';
}

export class NotificationDto {
  @ApiProperty({ description: 'a time-ordered uuid; also the id of its stream frame' }) id!: string;
  @ApiProperty({ enum: NOTIFICATION_KINDS }) kind!: NotificationKind;
  @ApiProperty({ description: 'the external id of the player it is for' }) userId!: string;
  @ApiProperty({ type: String, nullable: true, description: 'null for the friends kinds' }) groupId!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the external id of who made the change, when known; the pseudonym of an erased player; null when the call named nobody',
  })
  actorUserId!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'null while unread' }) readAt!: string | null;
  @ApiProperty({ type: NotificationDataDto }) data!: NotificationDataDto;
}

const BOOL = ['true', 'false'];

export class ListNotificationsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: BOOL, default: 'false', description: 'true: only those not read yet' })
  @IsOptional()
  @IsIn(BOOL, { message: 'unread must be true or false' })
  unread?: string;

  @ApiPropertyOptional({
    example: 'invitation.received,friend.request.received',
    description: `only these kinds, a comma-separated list of: ${NOTIFICATION_KINDS.join(', ')}`,
  })
  @IsOptional()
  @IsString({ message: 'kinds must be a comma-separated list of notification kinds' })
  kinds?: string;
}

export class NotificationCountsDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'notifications not read yet' }) unread!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 1 },
    example: { 'invitation.received': 2, 'member.roles_changed': 1 },
    description: 'unread notifications by kind; only the kinds with some',
  })
  byKind!: Partial<Record<NotificationKind, number>>;
}

/** EXTENSIONS X9: at most this many ids per mark. */
export const MAX_READ_IDS = 100;
const IDS_MESSAGE = `ids must be an array of 1 to ${MAX_READ_IDS} notification ids`;

export class MarkNotificationsReadDto {
  // Its own example makes the document's example body `{ ids }` alone, not both fields (a 400).
  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: MAX_READ_IDS,
    example: ['019a3f6e-5b20-7c41-9d3e-2a1f0c4b8e77'],
    description: 'the notifications to mark read; give ids or all, not both',
  })
  @ValidateIf((o: MarkNotificationsReadDto) => o.ids !== undefined)
  @IsArray({ message: IDS_MESSAGE })
  @ArrayMinSize(1, { message: IDS_MESSAGE })
  @ArrayMaxSize(MAX_READ_IDS, { message: IDS_MESSAGE })
  @IsString({ each: true, message: IDS_MESSAGE })
  ids?: string[];

  @ApiPropertyOptional({ enum: [true], description: 'true: mark every unread notification of the player read' })
  @ValidateIf((o: MarkNotificationsReadDto) => o.all !== undefined)
  @IsIn([true], { message: 'all must be true' })
  all?: true;
}

export class NotificationsMarkedDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'how many were unread and are read now' }) marked!: number;
}
