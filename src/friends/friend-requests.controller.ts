import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import {
  AcceptFriendRequestResultDto,
  FriendRequestsDto,
  FriendRequestsQueryDto,
  SendFriendRequestResultDto,
  TargetUserDto,
} from './dto/friends.dto';
import { FriendRequestsService } from './friend-requests.service';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

@ApiTags('friends')
@ApiBearerAuth('apiKey')
@Controller('v1')
export class FriendRequestsController {
  constructor(private readonly requests: FriendRequestsService) {}

  @Post('users/:userId/friend-requests')
  @ApiOperation({ operationId: 'sendFriendRequest', summary: 'Send a friend request (accepted at once when the game sets requestsRequired=false)' })
  @ApiCreatedResponse({ type: SendFriendRequestResultDto })
  @ApiErrors(400, 401, 404)
  send(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Body() body: TargetUserDto): Promise<SendFriendRequestResultDto> {
    return this.requests.send(game, userId, body.targetSvcUserId);
  }

  @ReplicaRead()
  @Get('users/:userId/friend-requests')
  @ApiOperation({ operationId: 'listFriendRequests', summary: "A user's pending requests, inbound and outbound, as complete sets" })
  @ApiOkResponse({ type: FriendRequestsDto })
  @ApiErrors(400, 401, 404)
  list(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Query() query: FriendRequestsQueryDto): Promise<FriendRequestsDto> {
    return this.requests.list(game, userId, query.direction);
  }

  @Post('friend-requests/:id/accept')
  @HttpCode(200)
  @ApiOperation({ operationId: 'acceptFriendRequest', summary: 'Accept a request: it becomes a friendship (both rows, one transaction)' })
  @ApiOkResponse({ type: AcceptFriendRequestResultDto })
  @ApiErrors(400, 401, 404)
  accept(@CurrentGame() game: GameContext, @Param('id') id: string): Promise<AcceptFriendRequestResultDto> {
    return this.requests.accept(game, id);
  }

  @Post('friend-requests/:id/decline')
  @HttpCode(204)
  @ApiOperation({ operationId: 'declineFriendRequest', summary: 'Decline a request: it is deleted' })
  @ApiNoContentResponse()
  @ApiErrors(401, 404)
  async decline(@CurrentGame() game: GameContext, @Param('id') id: string): Promise<void> {
    await this.requests.decline(game, id);
  }

  @Delete('friend-requests/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'cancelFriendRequest', summary: 'The sender cancels the request' })
  @ApiNoContentResponse()
  @ApiErrors(401, 404)
  async cancel(@CurrentGame() game: GameContext, @Param('id') id: string): Promise<void> {
    await this.requests.cancel(game, id);
  }
}
