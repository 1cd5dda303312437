import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type Page } from '../common/pagination/page';
import {
  ApprovedJoinRequestDto,
  ApproveJoinRequestDto,
  CreateJoinRequestDto,
  DeclineJoinRequestDto,
  JoinRequestDto,
  ListGroupJoinRequestsQueryDto,
  ListUserJoinRequestsQueryDto,
} from './dto/join-request.dto';
import { JoinRequestsService } from './join-requests.service';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

const NO_PERMISSION_RULE = 'The API key authorizes: check the deciding player with GET /v1/permissions/check first if your game has such a rule.';

@ApiTags('join requests')
@ApiBearerAuth('apiKey')
@Controller('v1')
export class JoinRequestsController {
  constructor(private readonly joinRequests: JoinRequestsService) {}

  @Post('groups/:id/join-requests')
  @ApiOperation({ operationId: 'createJoinRequest', summary: 'Ask to join an invite-only group (a public group is joined directly; a secret one is 404)' })
  @ApiCreatedResponse({ type: JoinRequestDto })
  @ApiErrors(400, 401, 'banned', 404, 'already_member', 'join_request_pending')
  create(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: CreateJoinRequestDto): Promise<JoinRequestDto> {
    return this.joinRequests.create(game, id, body);
  }

  @ReplicaRead()
  @Get('groups/:id/join-requests')
  @ApiOperation({ operationId: 'listGroupJoinRequests', summary: "A group's join requests, newest first; pending ones unless status says otherwise" })
  @ApiPageResponse(JoinRequestDto)
  @ApiErrors(400, 401, 404)
  listForGroup(
    @CurrentGame() game: GameContext,
    @Param('id') id: string,
    @Query() query: ListGroupJoinRequestsQueryDto,
  ): Promise<Page<JoinRequestDto>> {
    return this.joinRequests.listForGroup(game, id, query);
  }

  @ReplicaRead()
  @Get('users/:userId/join-requests')
  @ApiOperation({ operationId: 'listUserJoinRequests', summary: "A user's join requests in live groups, newest first, every status unless status narrows it" })
  @ApiPageResponse(JoinRequestDto)
  @ApiErrors(400, 401)
  listForUser(
    @CurrentGame() game: GameContext,
    @Param('userId') userId: string,
    @Query() query: ListUserJoinRequestsQueryDto,
  ): Promise<Page<JoinRequestDto>> {
    return this.joinRequests.listForUser(game, userId, query);
  }

  @Post('join-requests/:id/approve')
  @HttpCode(200)
  @ApiOperation({ operationId: 'approveJoinRequest', summary: `Approve a pending request: the user becomes an active member. ${NO_PERMISSION_RULE}` })
  @ApiBody({ type: ApproveJoinRequestDto, required: false, description: 'may be omitted: no actor is recorded' })
  @ApiOkResponse({ type: ApprovedJoinRequestDto })
  @ApiErrors(400, 401, 'banned', 404, 'already_member', 'group_full', 'already_in_group_of_kind', 'join_request_closed')
  approve(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: ApproveJoinRequestDto): Promise<ApprovedJoinRequestDto> {
    return this.joinRequests.approve(game, id, body);
  }

  @Post('join-requests/:id/decline')
  @HttpCode(200)
  @ApiOperation({ operationId: 'declineJoinRequest', summary: `Decline a pending request. ${NO_PERMISSION_RULE}` })
  @ApiBody({ type: DeclineJoinRequestDto, required: false, description: 'may be omitted: no actor or reason is recorded' })
  @ApiOkResponse({ type: JoinRequestDto })
  @ApiErrors(400, 401, 404, 'join_request_closed')
  decline(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: DeclineJoinRequestDto): Promise<JoinRequestDto> {
    return this.joinRequests.decline(game, id, body);
  }

  @Post('join-requests/:id/cancel')
  @HttpCode(200)
  @ApiOperation({ operationId: 'cancelJoinRequest', summary: 'Withdraw a pending request, on behalf of the user who made it' })
  @ApiOkResponse({ type: JoinRequestDto })
  @ApiErrors(401, 404, 'join_request_closed')
  cancel(@CurrentGame() game: GameContext, @Param('id') id: string): Promise<JoinRequestDto> {
    return this.joinRequests.cancel(game, id);
  }
}
