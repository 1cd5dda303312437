import { Body, Controller, Delete, Get, Header, Headers, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type PageJson } from '../common/pagination/page';
import { CONSISTENCY_HEADER } from '../db/replica/consistency-token';
import { ReplicaRead } from '../db/replica/replica-read.decorator';
import {
  ListNotificationsQueryDto,
  MarkNotificationsReadDto,
  NotificationCountsDto,
  NotificationDto,
  NotificationsMarkedDto,
} from './dto/notification.dto';
import { NotificationsService } from './notifications.service';

const NEVER_SEEN = 'A user the game has never seen has none: never 404.';

/** A player's notifications (EXTENSIONS X9): `/v1/users/:userId/notifications`. */
@ApiTags('notifications')
@ApiBearerAuth('apiKey')
@Controller('v1/users')
export class NotificationsController {
  constructor(private readonly notifications: NotificationsService) {}

  @ReplicaRead()
  @Get(':userId/notifications')
  @ApiOperation({
    operationId: 'listUserNotifications',
    summary: "A player's notifications, newest first",
    description: `What happened to the player: invited, a join request decided, kicked, banned, roles changed, handed a group, a friend request received or accepted. unread=true keeps those not read yet, kinds some kinds only. ${NEVER_SEEN}`,
  })
  @ApiPageResponse(NotificationDto)
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiErrors(400, 401)
  list(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Query() query: ListNotificationsQueryDto): Promise<PageJson> {
    return this.notifications.list(game, userId, query);
  }

  @ReplicaRead()
  @Get(':userId/notifications/counts')
  @ApiOperation({
    operationId: 'getUserNotificationCounts',
    summary: "How many of a player's notifications are unread, in all and by kind",
    description: `For a badge. ${NEVER_SEEN.replace('has none', 'has zero counts')}`,
  })
  @ApiOkResponse({ type: NotificationCountsDto })
  @ApiErrors(400, 401)
  counts(
    @CurrentGame() game: GameContext,
    @Param('userId') userId: string,
    @Headers(CONSISTENCY_HEADER) consistency: string | undefined,
  ): Promise<NotificationCountsDto> {
    return this.notifications.counts(game, userId, consistency !== undefined);
  }

  @Post(':userId/notifications/read')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'markUserNotificationsRead',
    summary: "Mark some of a player's notifications read, or all of them",
    description:
      'Sets readAt on those still unread and answers how many that was: an id of another player or game, or one read already, ' +
      "counts nothing, so the call can be repeated. The player's open streams on every device hear of it (notifications.read).",
  })
  @ApiBody({ type: MarkNotificationsReadDto })
  @ApiOkResponse({ type: NotificationsMarkedDto })
  @ApiErrors(400, 401)
  markRead(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Body() body: MarkNotificationsReadDto): Promise<NotificationsMarkedDto> {
    return this.notifications.markRead(game, userId, body);
  }

  @Delete(':userId/notifications/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'dismissUserNotification', summary: "Dismiss (delete) one of a player's notifications" })
  @ApiNoContentResponse({ description: 'dismissed' })
  @ApiErrors(400, 401, 404)
  dismiss(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Param('id') id: string): Promise<void> {
    return this.notifications.dismiss(game, userId, id);
  }
}
