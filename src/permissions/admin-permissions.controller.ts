import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { GamesService } from '../games/games.service';
import { EffectivePermissionsDto } from './dto/effective-permissions.dto';
import { CatalogDto, PermissionCheckQueryDto, PermissionCheckResultDto } from './dto/permission.dto';
import type { PermissionCheckResult } from './permission-resolver';
import { PermissionsService } from './permissions.service';

@ApiTags('admin: permissions')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/permissions')
export class AdminPermissionsController {
  constructor(
    private readonly permissions: PermissionsService,
    private readonly games: GamesService,
  ) {}

  @Get()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetPermissionCatalog', summary: "The game's permission catalog: every key ever granted, by name" })
  @ApiOkResponse({ type: CatalogDto })
  @ApiErrors(401, 404)
  async catalog(@Param('gameId') gameId: string): Promise<CatalogDto> {
    await this.games.requireGame(gameId);
    return this.permissions.catalog(gameId);
  }

  @Get('check')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminCheckPermission', summary: 'The permission check of the game route, scoped to the path game' })
  @ApiOkResponse({ type: PermissionCheckResultDto })
  @ApiErrors(400, 401, 404)
  async check(@Param('gameId') gameId: string, @Query() q: PermissionCheckQueryDto): Promise<PermissionCheckResult> {
    await this.games.requireGame(gameId);
    return this.permissions.check(gameId, q.userId, q.groupId, q.permission);
  }
}

/** A member's effective permissions for an operator (the console's member page). */
@ApiTags('admin: permissions')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/groups/:groupId/members/:userId/permissions')
export class AdminMemberPermissionsController {
  constructor(
    private readonly permissions: PermissionsService,
    private readonly games: GamesService,
  ) {}

  @Get()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetEffectivePermissions', summary: 'Every key a user is allowed in a group now, as GET /v1/groups/{id}/members/{userId}/permissions answers' })
  @ApiOkResponse({ type: EffectivePermissionsDto })
  @ApiErrors(401, 404)
  async effective(@Param('gameId') gameId: string, @Param('groupId') groupId: string, @Param('userId') userId: string): Promise<EffectivePermissionsDto> {
    await this.games.requireGame(gameId);
    return this.permissions.effective(gameId, groupId, userId);
  }
}
