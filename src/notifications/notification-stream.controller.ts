import { Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiEventStream } from '../events/events.controller';
import { NotificationStreamQueryDto } from './dto/notification-stream.dto';
import { NotificationStreamOpener } from './notification-stream-opener';

const FRAMES =
  '`event: notification` with `id` (the notification id) and the Notification as `data`, for each new one; ' +
  '`event: notifications.read` with `{ ids }` or `{ all: true, before }` as `data` (no id) when any device marks them read; `:heartbeat` every 30 s';

/** A player's notification stream (EXTENSIONS X9): `/v1/users/:userId/notifications/stream`. */
@ApiTags('notifications')
@ApiBearerAuth('apiKey')
@Controller('v1/users')
export class NotificationStreamController {
  constructor(private readonly opener: NotificationStreamOpener) {}

  @Get(':userId/notifications/stream')
  @ApiOperation({
    operationId: 'streamUserNotifications',
    summary: `A player's notifications as a stream (Server-Sent Events): live, or replayed after a notification id then live. ${FRAMES}`,
    description:
      'Frames as the group stream. Without a resume id the stream opens with an id-only frame naming the player\'s last ' +
      'notification, which a client whose connection drops before its first frame resumes after. A notification is sent once ' +
      'every transaction older than its own has ended, so a resume never misses one committed late. A player the game has ' +
      'never seen gets a stream all the same, which their first notification reaches.',
  })
  @ApiEventStream(FRAMES)
  @ApiErrors(400, 401, 'events_expired')
  async stream(
    @CurrentGame() game: GameContext,
    @Param('userId') userId: string,
    @Query() query: NotificationStreamQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() req: unknown,
    @Res() res: unknown,
  ): Promise<void> {
    await this.opener.open(game.gameId, userId, { after: query.after, lastEventId }, req, res);
  }
}
