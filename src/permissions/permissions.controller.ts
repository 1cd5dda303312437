import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { OverrideDto, PermissionCheckQueryDto, PermissionCheckResultDto, SetOverrideDto } from './dto/permission.dto';
import type { PermissionCheckResult } from './permission-resolver';
import { PermissionsService } from './permissions.service';

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

  @Post('groups/:id/members/:userId/permissions/:permission')
  @HttpCode(200)
  @ApiOperation({ operationId: 'setPermissionOverride', summary: 'Set a member permission override (body optional: allowed defaults to true)' })
  @ApiBody({ type: SetOverrideDto, required: false, description: 'may be omitted: the override then grants (allowed true)' })
  @ApiOkResponse({ type: OverrideDto })
  @ApiErrors(400, 401, 404)
  setOverride(
    @CurrentGame() game: GameContext,
    @Param('id') id: string,
    @Param('userId') userId: string,
    @Param('permission') permission: string,
    @Body() body: SetOverrideDto,
  ): Promise<OverrideDto> {
    return this.permissions.setOverride(game, id, userId, permission, body.allowed ?? true);
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
