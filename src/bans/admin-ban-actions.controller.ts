import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGameScope } from '../admin/admin-game-scope';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { MemberDto } from '../members/dto/member.dto';
import { BansService } from './bans.service';
import { AdminBanDto, BanDto } from './dto/ban.dto';
import { GroupBansService } from './group-bans.service';

/**
 * Game-wide and group bans set and lifted by an operator: the game routes' services in the path's
 * game, each change with its operator audit entry. Their reads are the admin bans list and the
 * admin members list with status=banned.
 */
@ApiTags('admin: moderation')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId')
export class AdminBanActionsController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly bans: BansService,
    private readonly groupBans: GroupBansService,
  ) {}

  @Post('bans')
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminBanUser', summary: 'Ban a user game-wide, as POST /v1/bans does (unknown body fields are refused)' })
  @ApiCreatedResponse({ type: BanDto })
  @ApiErrors(400, 401, 404)
  async ban(@Param('gameId') gameId: string, @Body() body: AdminBanDto, @Acting() by: ActingOperator): Promise<BanDto> {
    return this.bans.ban(await this.scope.of(gameId), body, by);
  }

  @Delete('bans/:userId')
  @HttpCode(204)
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminLiftBan', summary: 'Lift a game-wide ban in force, as DELETE /v1/bans/{userId} does' })
  @ApiNoContentResponse()
  @ApiErrors(401, 404)
  async lift(@Param('gameId') gameId: string, @Param('userId') userId: string, @Acting() by: ActingOperator): Promise<void> {
    await this.bans.lift(await this.scope.of(gameId), userId, by);
  }

  @Post('groups/:groupId/bans')
  @MinRole('moderator')
  @ApiOperation({
    operationId: 'adminBanFromGroup',
    summary: 'Ban a user from a group, as POST /v1/groups/{id}/bans does (a non-member gets a banned member row); the owner only as its last active member',
  })
  @ApiCreatedResponse({ type: MemberDto })
  @ApiErrors(400, 401, 404, 'owner_must_transfer')
  async banFromGroup(
    @Param('gameId') gameId: string,
    @Param('groupId') groupId: string,
    @Body() body: AdminBanDto,
    @Acting() by: ActingOperator,
  ): Promise<MemberDto> {
    return this.groupBans.ban(await this.scope.of(gameId), groupId, body, by);
  }

  @Delete('groups/:groupId/bans/:userId')
  @HttpCode(204)
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminUnbanFromGroup', summary: 'Lift a group ban, as DELETE /v1/groups/{id}/bans/{userId} does: the member is left' })
  @ApiNoContentResponse()
  @ApiErrors(401, 404)
  async unbanFromGroup(
    @Param('gameId') gameId: string,
    @Param('groupId') groupId: string,
    @Param('userId') userId: string,
    @Acting() by: ActingOperator,
  ): Promise<void> {
    await this.groupBans.unban(await this.scope.of(gameId), groupId, userId, by);
  }
}
