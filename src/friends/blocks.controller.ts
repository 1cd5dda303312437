import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, PageQueryDto, type Page } from '../common/pagination/page';
import { BlocksService } from './blocks.service';
import { BlockDto, TargetUserDto } from './dto/friends.dto';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

type StatusSettable = { status(code: number): unknown };

@ApiTags('friends')
@ApiBearerAuth('apiKey')
@Controller('v1/users/:userId/blocks')
export class BlocksController {
  constructor(private readonly blocks: BlocksService) {}

  @Post()
  @ApiOperation({ operationId: 'blockUser', summary: 'Block a user: removes friendship and pending requests both ways (idempotent)' })
  @ApiCreatedResponse({ type: BlockDto, description: 'block added' })
  @ApiOkResponse({ type: BlockDto, description: 'the block was already in place' })
  @ApiErrors(400, 401, 404)
  async block(
    @CurrentGame() game: GameContext,
    @Param('userId') userId: string,
    @Body() body: TargetUserDto,
    @Res({ passthrough: true }) res: StatusSettable,
  ): Promise<BlockDto> {
    const { block, created } = await this.blocks.block(game, userId, body.targetSvcUserId);
    res.status(created ? 201 : 200);
    return block;
  }

  @ReplicaRead()
  @Get()
  @ApiOperation({ operationId: 'listBlocks', summary: "A user's outbound blocks, newest first" })
  @ApiPageResponse(BlockDto)
  @ApiErrors(400, 401, 404)
  list(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Query() query: PageQueryDto): Promise<Page<BlockDto>> {
    return this.blocks.list(game, userId, query);
  }

  @Delete(':otherUserId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'unblockUser', summary: 'Remove a block' })
  @ApiNoContentResponse()
  @ApiErrors(401, 404)
  async unblock(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Param('otherUserId') otherUserId: string): Promise<void> {
    await this.blocks.unblock(game, userId, otherUserId);
  }
}
