import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** `GET /v1/users/:userId/notifications/stream`; the value is checked by the opener (400 naming the field). */
export class NotificationStreamQueryDto {
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "a notification id of this player: the player's notifications after it are replayed, then live. Also read from the " +
      "Last-Event-ID header. One no longer kept (dismissed, swept), another player's or unknown: 410 events_expired",
  })
  @IsOptional()
  @IsString()
  after?: string;
}
