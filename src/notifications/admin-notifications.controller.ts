import { Controller, Get, Header, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type PageJson } from '../common/pagination/page';
import { ReplicaRead } from '../db/replica/replica-read.decorator';
import { GamesService } from '../games/games.service';
import { MAX_PATH_USER_ID } from '../users/user-id';
import { ListNotificationsQueryDto, NotificationDto } from './dto/notification.dto';
import { NotificationsService } from './notifications.service';

/**
 * A player's notifications for an operator (the console's user page): the game route's list, read
 * as the game's key would read it. Read-only: marking and dismissing are the player's own state.
 */
@ApiTags('admin: users')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/users')
export class AdminNotificationsController {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly games: GamesService,
  ) {}

  @ReplicaRead()
  @Get(':externalUserId/notifications')
  @MinRole('viewer')
  @ApiOperation({
    operationId: 'adminListUserNotifications',
    summary: "A player's notifications, newest first, as GET /v1/users/{userId}/notifications answers them for the game's key",
    description:
      'Same filters (unread, kinds) and pages (limit, cursor). A user the game has never seen has none: an empty page, as on the game route. An unknown game is 404.',
  })
  @ApiParam({
    name: 'externalUserId',
    description: `the user id the game uses (1-${MAX_PATH_USER_ID} characters)`,
    schema: { type: 'string', minLength: 1, maxLength: MAX_PATH_USER_ID },
  })
  @ApiPageResponse(NotificationDto)
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiErrors(400, 401, 404)
  async list(@Param('gameId') gameId: string, @Param('externalUserId') userId: string, @Query() query: ListNotificationsQueryDto): Promise<PageJson> {
    await this.games.requireGame(gameId);
    return this.notifications.list({ gameId }, userId, query);
  }
}
