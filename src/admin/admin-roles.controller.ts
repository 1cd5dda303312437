import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { RoleDto } from '../roles/dto/role.dto';
import { RolesService } from '../roles/roles.service';
import { AdminGameScope } from './admin-game-scope';

@ApiTags('admin: groups')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/groups/:groupId/roles')
export class AdminRolesController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly roles: RolesService,
  ) {}

  @Get()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminListGroupRoles', summary: "A live group's roles (bare array), as GET /v1/groups/{id}/roles answers them" })
  @ApiOkResponse({ type: [RoleDto] })
  @ApiErrors(401, 404)
  async list(@Param('gameId') gameId: string, @Param('groupId') groupId: string): Promise<RoleDto[]> {
    return this.roles.list(await this.scope.of(gameId), groupId);
  }
}
