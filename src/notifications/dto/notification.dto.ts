import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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
