import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { EVENT_TYPES } from '../event-types';

const AFTER = 'an event id: start after it. Older than the retention window or unknown to the game: 410 events_expired';
const TYPES = `comma list of event types to keep (${EVENT_TYPES.length} published types; an unknown one is 400)`;

/** `GET /v1/events/feed`; the values are checked by the feed service (400 naming the field). */
export class FeedQueryDto {
  @ApiPropertyOptional({ description: `${AFTER}. Absent: from the oldest retained event`, pattern: '^[0-9a-f]{24}$' })
  @IsOptional()
  @IsString()
  after?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: TYPES, example: 'member.joined,member.left' })
  @IsOptional()
  @IsString()
  types?: string;
}

/** `GET /v1/events`: the game's stream. */
export class GameStreamQueryDto {
  @ApiPropertyOptional({ description: `${AFTER}; replayed, then live. Also read from the Last-Event-ID header. Absent: live only, opening with an id-only frame that names the game's last event (resume after it if the connection drops before an event)`, pattern: '^[0-9a-f]{24}$' })
  @IsOptional()
  @IsString()
  after?: string;

  @ApiPropertyOptional({ description: TYPES, example: 'member.joined,member.left' })
  @IsOptional()
  @IsString()
  types?: string;
}

/** `GET /v1/events/:groupId`: the group's stream. */
export class GroupStreamQueryDto {
  @ApiPropertyOptional({ description: 'external user id: secret groups are hidden unless they are an active member' })
  @IsOptional()
  @IsString()
  viewer?: string;

  @ApiPropertyOptional({ description: `${AFTER}; the group's events after it are replayed, then live. Also read from the Last-Event-ID header`, pattern: '^[0-9a-f]{24}$' })
  @IsOptional()
  @IsString()
  after?: string;
}

/** An event as webhooks receive it: the base fields, and the type's own fields beside them. */
export class EventBodyDto {
  @ApiProperty({ description: '24 hex characters', example: '019a7c3e5f10a1b2c3d4e5f6' }) id!: string;
  @ApiProperty({ enum: EVENT_TYPES }) type!: string;
  @ApiProperty({ format: 'uuid' }) gameId!: string;
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'group-scoped events only. User-scoped events (game.user.*, friend.*) have none: they are in the feed, the game ' +
      "stream and webhooks, never in a group's stream",
  })
  groupId?: string;
  @ApiProperty({ format: 'date-time' }) occurredAt!: string;
}

export class FeedPageDto {
  @ApiProperty({ type: [EventBodyDto], description: 'in feed order; each body also carries its type-specific fields' })
  items!: EventBodyDto[];

  @ApiProperty({ type: String, nullable: true, description: 'pass as after for the next page: the last item, or the after given when the page is empty' })
  nextAfter!: string | null;
}
