import { Controller, Get, Header, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { FeedPageDto, FeedQueryDto, GameStreamQueryDto } from '../events/dto/feed.dto';
import { ApiEventStream, FRAMES } from '../events/events.controller';
import { FeedService, type FeedPageJson } from '../events/feed.service';
import { StreamOpener } from '../events/stream-opener';
import { AdminGameScope } from './admin-game-scope';
import { AdminGroupStreamQueryDto } from './dto/admin-events.dto';

/**
 * The game's events for an operator console: the feed and the streams of the game routes, with the
 * admin token and the game from the path. A browser reads the streams with fetch(), which, unlike
 * EventSource, can send the Authorization header.
 */
@ApiTags('admin: events')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId')
export class AdminEventsController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly feed: FeedService,
    private readonly opener: StreamOpener,
  ) {}

  @Get('events/feed')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetEventFeed', summary: "A page of the game's event feed, as GET /v1/events/feed answers it" })
  @ApiOkResponse({ type: FeedPageDto })
  @ApiErrors(400, 401, 404, 'events_expired')
  @Header('content-type', 'application/json; charset=utf-8')
  async page(@Param('gameId') gameId: string, @Query() query: FeedQueryDto): Promise<FeedPageJson> {
    const game = await this.scope.of(gameId);
    return this.feed.page(game.gameId, query);
  }

  @Get('events')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminStreamGameEvents', summary: `The game's stream (Server-Sent Events), as GET /v1/events: every event after \`after\` replayed, then live. ${FRAMES}` })
  @ApiEventStream()
  @ApiErrors(400, 401, 404, 'events_expired')
  async gameStream(
    @Param('gameId') gameId: string,
    @Query() query: GameStreamQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() req: unknown,
    @Res() res: unknown,
  ): Promise<void> {
    const game = await this.scope.of(gameId);
    await this.opener.game(game.gameId, { ...query, lastEventId }, req, res, 'admin');
  }

  @Get('groups/:groupId/events')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminStreamGroupEvents', summary: `A live group's stream (Server-Sent Events), as GET /v1/events/{groupId} without a viewer. ${FRAMES}` })
  @ApiEventStream()
  @ApiErrors(400, 401, 404, 'events_expired')
  async groupStream(
    @Param('gameId') gameId: string,
    @Param('groupId') groupId: string,
    @Query() query: AdminGroupStreamQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() req: unknown,
    @Res() res: unknown,
  ): Promise<void> {
    const game = await this.scope.of(gameId);
    await this.opener.group(game.gameId, groupId, undefined, { after: query.after, lastEventId }, req, res, 'admin');
  }
}
