import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { nodeObjects } from '../common/http/node-objects';
import { ViewerQueryDto } from '../groups/dto/group.dto';
import { GroupLookup } from '../groups/group-lookup';
import { EventStreams } from './event-streams';

@ApiTags('events')
@ApiBearerAuth('apiKey')
@Controller('v1/events')
export class EventsController {
  constructor(
    private readonly ds: DataSource,
    private readonly lookup: GroupLookup,
    private readonly streams: EventStreams,
  ) {}

  /** Handshake failures are ordinary envelopes: they are thrown before the stream takes over. */
  @Get(':groupId')
  @ApiOperation({
    summary: "A group's live stream (Server-Sent Events): `id`, `event` (type), `data` (JSON body); `:heartbeat` every 30 s",
  })
  @ApiProduces('text/event-stream')
  @ApiResponse({ status: 200, description: 'the stream; no replay, resubscribe and refetch after a close' })
  @ApiErrors(401, 404)
  async stream(
    @CurrentGame() game: GameContext,
    @Param('groupId') groupId: string,
    @Query() query: ViewerQueryDto,
    @Req() req: unknown,
    @Res() res: unknown,
  ): Promise<void> {
    const group = await this.lookup.visible(this.ds.manager, game.gameId, groupId, query.viewer);
    const node = nodeObjects(req, res);
    this.streams.open(group.id, node.req, node.res);
  }
}
