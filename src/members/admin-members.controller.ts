import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGameScope } from '../admin/admin-game-scope';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { GrantExpiryDto } from '../permissions/dto/grant-expiry.dto';
import { grantExpiry } from '../permissions/grant-expiry';
import { KickDto, MemberDto } from './dto/member.dto';
import { AdminLiftTimeoutDto, AdminTimeoutMemberDto } from './dto/member-timeout.dto';
import { MemberRolesService } from './member-roles.service';
import { MemberTimeoutsService } from './member-timeouts.service';
import { MembersService } from './members.service';

/**
 * A member for an operator (the console): its view, the kick, a role assignment and a timeout, each the game
 * route's, in the path's game, with the operator audited on a change.
 */
@ApiTags('admin: moderation')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/groups/:groupId/members')
export class AdminMembersController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly members: MembersService,
    private readonly memberRoles: MemberRolesService,
    private readonly timeouts: MemberTimeoutsService,
  ) {}

  @Get(':userId')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetGroupMember', summary: 'The member row of a user in a group, whatever its status, as GET /v1/groups/{id}/members/{userId} answers it' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(401, 404)
  async get(@Param('gameId') gameId: string, @Param('groupId') groupId: string, @Param('userId') userId: string): Promise<MemberDto> {
    return this.members.getInGroup(await this.scope.of(gameId), groupId, userId);
  }

  @Post(':userId/roles/:roleId')
  @HttpCode(200)
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminAssignMemberRole', summary: 'Assign a role to a member, for good or until an expiry, as POST /v1/groups/{id}/members/{userId}/roles/{roleId} does' })
  @ApiBody({ type: GrantExpiryDto, required: false, description: 'may be omitted: the assignment is then permanent' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 'role_group_mismatch', 401, 404)
  async assignRole(
    @Param('gameId') gameId: string,
    @Param('groupId') groupId: string,
    @Param('userId') userId: string,
    @Param('roleId') roleId: string,
    @Body() body: GrantExpiryDto,
    @Acting() by: ActingOperator,
  ): Promise<MemberDto> {
    return this.memberRoles.assign(await this.scope.of(gameId), groupId, userId, roleId, grantExpiry(body), by);
  }

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

  @Post(':userId/timeout')
  @HttpCode(200)
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminTimeoutMember', summary: 'Time out an active member, as POST /v1/groups/{id}/members/{userId}/timeout does' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 401, 404, 'not_a_member')
  async timeout(
    @Param('gameId') gameId: string,
    @Param('groupId') groupId: string,
    @Param('userId') userId: string,
    @Body() body: AdminTimeoutMemberDto,
    @Acting() by: ActingOperator,
  ): Promise<MemberDto> {
    return this.timeouts.timeout(await this.scope.of(gameId), groupId, userId, body, by);
  }

  @Delete(':userId/timeout')
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminLiftMemberTimeout', summary: 'Lift the timeout in force, as DELETE /v1/groups/{id}/members/{userId}/timeout does' })
  @ApiBody({ type: AdminLiftTimeoutDto, required: false, description: 'may be omitted: no reason is recorded' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 401, 404)
  async lift(
    @Param('gameId') gameId: string,
    @Param('groupId') groupId: string,
    @Param('userId') userId: string,
    @Body() body: AdminLiftTimeoutDto,
    @Acting() by: ActingOperator,
  ): Promise<MemberDto> {
    return this.timeouts.lift(await this.scope.of(gameId), groupId, userId, body ?? {}, by);
  }
}
