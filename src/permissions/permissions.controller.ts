import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { OverrideDto, PermissionCheckQueryDto, PermissionCheckResultDto, SetOverrideDto } from './dto/permission.dto';
import type { PermissionCheckResult } from './permission-resolver';
import { PermissionsService } from './permissions.service';
import { ApiPageResponse, type PageJson } from '../common/pagination/page';
import { GroupDto } from '../groups/dto/group.dto';
import { CheckBatchDto, CheckBatchResponseDto } from './dto/check-batch.dto';
import { EffectivePermissionsDto, GroupsAllowingQueryDto } from './dto/effective-permissions.dto';
import { grantExpiry } from './grant-expiry';
import { batchJson, type BatchJson } from './batch-json';

@ApiTags('permissions')
@ApiBearerAuth('apiKey')
@Controller('v1')
export class PermissionsController {
  constructor(private readonly permissions: PermissionsService) {}

  @Get('permissions/check')
  @ApiOperation({ operationId: 'checkPermission', summary: 'May this user do this in this group? none → override → role → default' })
  @ApiOkResponse({ type: PermissionCheckResultDto })
  @ApiErrors(400, 401, 404)
  check(@CurrentGame() game: GameContext, @Query() q: PermissionCheckQueryDto): PermissionCheckResult | Promise<PermissionCheckResult> {
    return this.permissions.check(game.gameId, q.userId, q.groupId, q.permission);
  }

  @Post('permissions/check-batch')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'checkPermissionBatch',
    summary: 'Up to 100 permission checks from one snapshot, each answered as the single check; a group not found is an error in its place',
  })
  @ApiOkResponse({ type: CheckBatchResponseDto })
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiErrors(400, 401)
  async checkBatch(@CurrentGame() game: GameContext, @Body() body: CheckBatchDto): Promise<BatchJson> {
    return batchJson(await this.permissions.checkBatch(game.gameId, body.checks));
  }

  @Get('groups/:id/members/:userId/permissions')
  @ApiOperation({
    operationId: 'getEffectivePermissions',
    summary: "Every key a user is allowed in a group now, with the grant that decides each (role or override) and its expiry",
  })
  @ApiOkResponse({ type: EffectivePermissionsDto })
  @ApiErrors(401, 404)
  effective(@CurrentGame() game: GameContext, @Param('id') id: string, @Param('userId') userId: string): Promise<EffectivePermissionsDto> {
    return this.permissions.effective(game.gameId, id, userId);
  }

  @Get('users/:userId/groups')
  @ApiOperation({
    operationId: 'listGroupsAllowing',
    summary: 'The groups in which a user is allowed a key now, latest membership first, each once; every page full but the last',
  })
  @ApiPageResponse(GroupDto)
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiErrors(400, 401)
  groupsAllowing(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Query() q: GroupsAllowingQueryDto): Promise<PageJson> {
    return this.permissions.groupsAllowing(game.gameId, userId, q);
  }

  @Post('groups/:id/members/:userId/permissions/:permission')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'setPermissionOverride',
    summary: 'Set a member permission override (body optional: allowed defaults to true), for good or until an expiry; setting it again replaces the expiry',
  })
  @ApiBody({ type: SetOverrideDto, required: false, description: 'may be omitted: the override then grants (allowed true), for good' })
  @ApiOkResponse({ type: OverrideDto })
  @ApiErrors(400, 401, 404)
  setOverride(
    @CurrentGame() game: GameContext,
    @Param('id') id: string,
    @Param('userId') userId: string,
    @Param('permission') permission: string,
    @Body() body: SetOverrideDto,
  ): Promise<OverrideDto> {
    return this.permissions.setOverride(game, id, userId, permission, body.allowed ?? true, grantExpiry(body));
  }

  @Delete('groups/:id/members/:userId/permissions/:permission')
  @HttpCode(204)
  @ApiOperation({ operationId: 'clearPermissionOverride', summary: 'Clear a member permission override (idempotent)' })
  @ApiNoContentResponse()
  @ApiErrors(400, 401, 404)
  async clearOverride(
    @CurrentGame() game: GameContext,
    @Param('id') id: string,
    @Param('userId') userId: string,
    @Param('permission') permission: string,
  ): Promise<void> {
    await this.permissions.clearOverride(game, id, userId, permission);
  }
}
