import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGameScope } from '../admin/admin-game-scope';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type Page } from '../common/pagination/page';
import { ReplicaRead } from '../db/replica/replica-read.decorator';
import { AdminDeclineJoinRequestDto, ApprovedJoinRequestDto, JoinRequestDto, ListGroupJoinRequestsQueryDto } from './dto/join-request.dto';
import { JoinRequestsService } from './join-requests.service';

/**
 * A group's join requests for an operator: the game routes' list and decisions in the path's game.
 * The operator decides, so no player is recorded as the decider; the operator audit names them.
 */
@ApiTags('admin: moderation')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId')
export class AdminJoinRequestsController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly joinRequests: JoinRequestsService,
  ) {}

  @Get('groups/:groupId/join-requests')
  @MinRole('viewer')
  @ReplicaRead()
  @ApiOperation({ operationId: 'adminListGroupJoinRequests', summary: "A group's join requests, newest first, as GET /v1/groups/{id}/join-requests answers them" })
  @ApiPageResponse(JoinRequestDto)
  @ApiErrors(400, 401, 404)
  async list(
    @Param('gameId') gameId: string,
    @Param('groupId') groupId: string,
    @Query() query: ListGroupJoinRequestsQueryDto,
  ): Promise<Page<JoinRequestDto>> {
    return this.joinRequests.listForGroup(await this.scope.of(gameId), groupId, query);
  }

  @Post('join-requests/:id/approve')
  @HttpCode(200)
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminApproveJoinRequest', summary: 'Approve a pending request, as POST /v1/join-requests/{id}/approve does: the user becomes an active member' })
  @ApiOkResponse({ type: ApprovedJoinRequestDto })
  @ApiErrors(401, 'banned', 404, 'already_member', 'group_full', 'already_in_group_of_kind', 'join_request_closed')
  async approve(@Param('gameId') gameId: string, @Param('id') id: string, @Acting() by: ActingOperator): Promise<ApprovedJoinRequestDto> {
    return this.joinRequests.approve(await this.scope.of(gameId), id, {}, by);
  }

  @Post('join-requests/:id/decline')
  @HttpCode(200)
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminDeclineJoinRequest', summary: 'Decline a pending request, as POST /v1/join-requests/{id}/decline does' })
  @ApiBody({ type: AdminDeclineJoinRequestDto, required: false, description: 'may be omitted: no reason is recorded' })
  @ApiOkResponse({ type: JoinRequestDto })
  @ApiErrors(400, 401, 404, 'join_request_closed')
  async decline(
    @Param('gameId') gameId: string,
    @Param('id') id: string,
    @Body() body: AdminDeclineJoinRequestDto,
    @Acting() by: ActingOperator,
  ): Promise<JoinRequestDto> {
    return this.joinRequests.decline(await this.scope.of(gameId), id, body, by);
  }
}
