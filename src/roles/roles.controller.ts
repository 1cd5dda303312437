import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { CreateRoleDto, GrantPermissionDto, RoleDto, UpdateRoleDto } from './dto/role.dto';
import { RolesService } from './roles.service';

@ApiTags('roles')
@ApiBearerAuth('apiKey')
@Controller('v1')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Post('groups/:id/roles')
  @ApiOperation({ operationId: 'createRole', summary: 'Create a role in a group' })
  @ApiCreatedResponse({ type: RoleDto })
  @ApiErrors(400, 401, 404, 'role_name_taken')
  create(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: CreateRoleDto): Promise<RoleDto> {
    return this.roles.create(game, id, body);
  }

  @Get('groups/:id/roles')
  @ApiOperation({ operationId: 'listRoles', summary: "A group's roles (bare array), priority descending then id descending" })
  @ApiOkResponse({ type: [RoleDto] })
  @ApiErrors(401, 404)
  list(@CurrentGame() game: GameContext, @Param('id') id: string): Promise<RoleDto[]> {
    return this.roles.list(game, id);
  }

  @Get('roles/:id')
  @ApiOperation({ operationId: 'getRole', summary: 'A role' })
  @ApiOkResponse({ type: RoleDto })
  @ApiErrors(401, 404)
  get(@CurrentGame() game: GameContext, @Param('id') id: string): Promise<RoleDto> {
    return this.roles.get(game, id);
  }

  @Patch('roles/:id')
  @ApiOperation({ operationId: 'updateRole', summary: 'Update a role; a no-op writes nothing' })
  @ApiOkResponse({ type: RoleDto })
  @ApiErrors(400, 401, 404, 'role_name_taken')
  update(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: UpdateRoleDto): Promise<RoleDto> {
    return this.roles.update(game, id, body);
  }

  @Delete('roles/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteRole', summary: 'Delete a role that no member holds' })
  @ApiNoContentResponse()
  @ApiErrors(401, 404, 'role_has_members')
  async delete(@CurrentGame() game: GameContext, @Param('id') id: string): Promise<void> {
    await this.roles.delete(game, id);
  }

  @Post('roles/:id/permissions')
  @HttpCode(200)
  @ApiOperation({ operationId: 'grantRolePermission', summary: 'Grant a permission key to a role (idempotent)' })
  @ApiOkResponse({ type: RoleDto })
  @ApiErrors(400, 401, 404)
  grant(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: GrantPermissionDto): Promise<RoleDto> {
    return this.roles.grant(game, id, body.permission);
  }

  @Delete('roles/:id/permissions/:permission')
  @ApiOperation({ operationId: 'revokeRolePermission', summary: 'Revoke a permission key from a role (idempotent)' })
  @ApiOkResponse({ type: RoleDto })
  @ApiErrors(401, 404)
  revoke(@CurrentGame() game: GameContext, @Param('id') id: string, @Param('permission') permission: string): Promise<RoleDto> {
    return this.roles.revoke(game, id, permission);
  }
}
