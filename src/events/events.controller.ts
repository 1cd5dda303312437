import { Controller, Get, Header, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { nodeObjects } from '../common/http/node-objects';
import { GroupLookup } from '../groups/group-lookup';
import { FeedPageDto, FeedQueryDto, GameStreamQueryDto, GroupStreamQueryDto } from './dto/feed.dto';
import { EventStreams } from './event-streams';
import { parseEventId, parseEventTypes } from './feed-position';
import { FeedService, type FeedPageJson } from './feed.service';

const LAST_EVENT_ID = {
  name: 'last-event-id',
  required: false,
  description: 'the id of the last event received, as browsers send it on reconnect; the after parameter wins over it',
};
const FRAMES = '`id` (event id), `event` (type), `data` (JSON body as webhooks receive it); `:heartbeat` every 30 s';

/**
 * Handshake failures are ordinary envelopes: everything that can fail (auth, group, `after`,
 * `types`) is settled before the stream sends its headers.
 */
@ApiTags('events')
@ApiBearerAuth('apiKey')
@Controller('v1/events')
export class EventsController {
  constructor(
    private readonly ds: DataSource,
    private readonly lookup: GroupLookup,
    private readonly streams: EventStreams,
    private readonly feed: FeedService,
  ) {}

  // Declared before `:groupId`, which would otherwise be asked to find a group called "feed".
  @Get('feed')
  @ApiOperation({ operationId: 'getEventFeed', summary: "A page of the game's event feed: every event, in feed order, resumable with nextAfter" })
  @ApiOkResponse({ type: FeedPageDto })
  @ApiErrors(400, 401, 'events_expired')
  @Header('content-type', 'application/json; charset=utf-8')
  page(@CurrentGame() game: GameContext, @Query() query: FeedQueryDto): Promise<FeedPageJson> {
    return this.feed.page(game.gameId, query);
  }

  @Get()
  @ApiOperation({ operationId: 'streamGameEvents', summary: `The game's stream (Server-Sent Events): every event after \`after\` replayed, then live. ${FRAMES}` })
  @ApiProduces('text/event-stream')
  @ApiHeader(LAST_EVENT_ID)
  @ApiResponse({ status: 200, description: 'the stream; reconnect with the last id seen to resume without a gap' })
  @ApiErrors(400, 401, 'events_expired')
  async gameStream(
    @CurrentGame() game: GameContext,
    @Query() query: GameStreamQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() req: unknown,
    @Res() res: unknown,
  ): Promise<void> {
    const types = parseEventTypes(query.types);
    const after = await this.after(game.gameId, query.after, lastEventId);
    await this.streams.open(game.gameId, { types: types && new Set(types) }, after, () => nodeObjects(req, res));
  }

  @Get(':groupId')
  @ApiOperation({ operationId: 'streamGroupEvents', summary: `A group's stream (Server-Sent Events): live, or replayed from \`after\` then live. ${FRAMES}` })
  @ApiProduces('text/event-stream')
  @ApiHeader(LAST_EVENT_ID)
  @ApiResponse({ status: 200, description: 'the stream; reconnect with the last id seen to resume without a gap' })
  @ApiErrors(400, 401, 404, 'events_expired')
  async stream(
    @CurrentGame() game: GameContext,
    @Param('groupId') groupId: string,
    @Query() query: GroupStreamQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() req: unknown,
    @Res() res: unknown,
  ): Promise<void> {
    const group = await this.lookup.visible(this.ds.manager, game.gameId, groupId, query.viewer);
    const after = await this.after(game.gameId, query.after, lastEventId);
    await this.streams.open(game.gameId, { groupId: group.id }, after, () => nodeObjects(req, res));
  }

  private async after(gameId: string, query: string | undefined, header: string | undefined) {
    const id = query !== undefined ? parseEventId(query, 'after') : parseEventId(header, 'Last-Event-ID');
    return id ? this.feed.resolve(gameId, id) : null;
  }
}
