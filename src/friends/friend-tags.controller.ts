import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { CreateFriendTagDto, FriendshipDto, FriendTagDto, FriendTagListDto, SetFriendTagsDto, UpdateFriendTagDto } from './dto/friends.dto';
import { FriendTagsService } from './friend-tags.service';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

@ApiTags('friends')
@ApiBearerAuth('apiKey')
@Controller('v1')
export class FriendTagsController {
  constructor(private readonly tags: FriendTagsService) {}

  @ReplicaRead()
  @Get('users/:userId/friend-tags')
  @ApiOperation({ operationId: 'listFriendTags', summary: "A user's friend tags in the calling game, sorted by name" })
  @ApiOkResponse({ type: FriendTagListDto })
  @ApiErrors(401, 404)
  list(@CurrentGame() game: GameContext, @Param('userId') userId: string): Promise<FriendTagListDto> {
    return this.tags.list(game, userId);
  }

  @Post('users/:userId/friend-tags')
  @ApiOperation({ operationId: 'createFriendTag',
    summary: 'Create a friend tag (capped by friends.tags.maxPerUser)',
    description: 'A user the game has never seen is anchored first, so the answer is 201, not 404; 404 means friends or tags are off.',
  })
  @ApiCreatedResponse({ type: FriendTagDto })
  @ApiErrors(400, 401, 404)
  create(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Body() body: CreateFriendTagDto): Promise<FriendTagDto> {
    return this.tags.create(game, userId, body);
  }

  @Patch('friend-tags/:id')
  @ApiOperation({ operationId: 'updateFriendTag', summary: 'Rename or recolour a tag (color null clears it)' })
  @ApiOkResponse({ type: FriendTagDto })
  @ApiErrors(400, 401, 404)
  update(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: UpdateFriendTagDto): Promise<FriendTagDto> {
    return this.tags.update(game, id, body);
  }

  @Delete('friend-tags/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteFriendTag', summary: 'Delete a tag and every attachment of it' })
  @ApiNoContentResponse()
  @ApiErrors(401, 404)
  async delete(@CurrentGame() game: GameContext, @Param('id') id: string): Promise<void> {
    await this.tags.delete(game, id);
  }

  @Put('users/:userId/friends/:otherUserId/tags')
  @ApiOperation({ operationId: 'setFriendTags', summary: "Replace the owner's tag set on a friend; [] clears it" })
  @ApiOkResponse({ type: FriendshipDto })
  @ApiErrors(400, 401, 404)
  set(
    @CurrentGame() game: GameContext,
    @Param('userId') userId: string,
    @Param('otherUserId') otherUserId: string,
    @Body() body: SetFriendTagsDto,
  ): Promise<FriendshipDto> {
    return this.tags.setForFriend(game, userId, otherUserId, body.tagIds);
  }
}
