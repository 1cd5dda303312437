import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGameScope } from '../admin/admin-game-scope';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { KickDto, MemberDto } from './dto/member.dto';
import { MembersService } from './members.service';

/** The kick for an operator (the console): the game route's, in the path's game, with the operator audited. */
@ApiTags('admin: moderation')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/groups/:groupId/members')
export class AdminMembersController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly members: MembersService,
  ) {}

  @Post(':userId/kick')
  @HttpCode(200)
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminKickMember', summary: 'Kick a member, as POST /v1/groups/{id}/members/{userId}/kick does (idempotent on members who are not active)' })
  @ApiBody({ type: KickDto, required: false, description: 'may be omitted (or `{}`): no reason is recorded' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 401, 404, 'owner_must_transfer')
  async kick(
    @Param('gameId') gameId: string,
    @Param('groupId') groupId: string,
    @Param('userId') userId: string,
    @Body() body: KickDto,
    @Acting() by: ActingOperator,
  ): Promise<MemberDto> {
    return this.members.kick(await this.scope.of(gameId), groupId, userId, body, by);
  }
}
