import { Controller, Delete, Get, Header, HttpCode, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type PageJson } from '../common/pagination/page';
import { FriendsListQueryDto, FriendshipDto, RelationshipDto } from './dto/friends.dto';
import { FriendshipsService } from './friendships.service';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

@ApiTags('friends')
@ApiBearerAuth('apiKey')
@Controller('v1/users/:userId/friends')
export class FriendshipsController {
  constructor(private readonly friendships: FriendshipsService) {}

  @ReplicaRead()
  @Get()
  @ApiOperation({ operationId: 'listFriends', summary: "A user's friends, newest friendship first; viewer applies the owner's visibility" })
  @ApiPageResponse(FriendshipDto)
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiErrors(400, 401, 404)
  list(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Query() query: FriendsListQueryDto): Promise<PageJson> {
    return this.friendships.list(game, userId, query);
  }

  @Delete(':otherUserId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'removeFriend', summary: 'Remove a friend: both rows, one transaction' })
  @ApiNoContentResponse()
  @ApiErrors(401, 404)
  async remove(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Param('otherUserId') otherUserId: string): Promise<void> {
    await this.friendships.remove(game, userId, otherUserId);
  }

  @ReplicaRead()
  @Get(':otherUserId/relationship')
  @ApiOperation({ operationId: 'getRelationship', summary: 'The relationship state the viewer (:userId) sees with another user, and since when' })
  @ApiOkResponse({ type: RelationshipDto })
  @ApiErrors(400, 401, 404)
  relationship(
    @CurrentGame() game: GameContext,
    @Param('userId') viewerUserId: string,
    @Param('otherUserId') otherUserId: string,
  ): Promise<RelationshipDto> {
    return this.friendships.relationship(game, viewerUserId, otherUserId);
  }
}
