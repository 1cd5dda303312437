import { applyDecorators, Controller, Get, Header, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { FeedPageDto, FeedQueryDto, GameStreamQueryDto, GroupStreamQueryDto } from './dto/feed.dto';
import { FeedService, type FeedPageJson } from './feed.service';
import { StreamOpener } from './stream-opener';

/** The documentation of the streams' header and frames, shared with the operator's streams. */
const LAST_EVENT_ID = {
  name: 'last-event-id',
  required: false,
  description: 'the id of the last event received, as browsers send it on reconnect; the after parameter wins over it',
};
export const FRAMES = '`id` (event id), `event` (type), `data` (JSON body as webhooks receive it); `:heartbeat` every 30 s';

/**
 * A stream's 200 answer is `text/event-stream`, while its handshake failures stay JSON envelopes:
 * the media type is set on the 200 answer alone (an operation-wide @ApiProduces would claim the
 * errors are event streams too, which a validating client rejects). `frames` describes a stream
 * whose frames are not the events' (a player's notifications).
 */
export function ApiEventStream(frames = FRAMES): MethodDecorator {
  return applyDecorators(
    ApiHeader(LAST_EVENT_ID),
    ApiResponse({
      status: 200,
      description: 'the stream; reconnect with the last id seen to resume without a gap',
      content: { 'text/event-stream': { schema: { type: 'string', description: `Server-Sent Events: ${frames}` } } },
    }),
  );
}

/** Handshake failures are ordinary envelopes: the guard and StreamOpener settle everything first. */
@ApiTags('events')
@ApiBearerAuth('apiKey')
@Controller('v1/events')
export class EventsController {
  constructor(
    private readonly feed: FeedService,
    private readonly opener: StreamOpener,
  ) {}

  // Declared before `:groupId`, which would otherwise be asked to find a group called "feed".
  @Get('feed')
  @ApiOperation({ operationId: 'getEventFeed', summary: "A page of the game's event feed: every event, group- and user-scoped, in feed order, resumable with nextAfter" })
  @ApiOkResponse({ type: FeedPageDto })
  @ApiErrors(400, 401, 'events_expired')
  @Header('content-type', 'application/json; charset=utf-8')
  page(@CurrentGame() game: GameContext, @Query() query: FeedQueryDto): Promise<FeedPageJson> {
    return this.feed.page(game.gameId, query);
  }

  @Get()
  @ApiOperation({ operationId: 'streamGameEvents', summary: `The game's stream (Server-Sent Events) of every event, group- and user-scoped: every event after \`after\` replayed, then live. ${FRAMES}` })
  @ApiEventStream()
  @ApiErrors(400, 401, 'events_expired')
  async gameStream(
    @CurrentGame() game: GameContext,
    @Query() query: GameStreamQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() req: unknown,
    @Res() res: unknown,
  ): Promise<void> {
    await this.opener.game(game.gameId, { ...query, lastEventId }, req, res);
  }

  @Get(':groupId')
  @ApiOperation({ operationId: 'streamGroupEvents', summary: `A group's stream (Server-Sent Events) of its group-scoped events (user-scoped ones are on the game stream): live, or replayed from \`after\` then live. ${FRAMES}` })
  @ApiEventStream()
  @ApiErrors(400, 401, 404, 'events_expired')
  async stream(
    @CurrentGame() game: GameContext,
    @Param('groupId') groupId: string,
    @Query() query: GroupStreamQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() req: unknown,
    @Res() res: unknown,
  ): Promise<void> {
    await this.opener.group(game.gameId, groupId, query.viewer, { after: query.after, lastEventId }, req, res);
  }
}
