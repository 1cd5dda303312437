import { Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { MemberDto } from './dto/member.dto';
import { MemberRolesService } from './member-roles.service';

@ApiTags('members')
@ApiBearerAuth('apiKey')
@Controller('v1/groups/:id/members/:userId/roles/:roleId')
export class MemberRolesController {
  constructor(private readonly memberRoles: MemberRolesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'assignMemberRole', summary: 'Assign a role of the group to a member (idempotent)' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 'role_group_mismatch', 401, 404)
  assign(@CurrentGame() game: GameContext, @Param('id') id: string, @Param('userId') userId: string, @Param('roleId') roleId: string) {
    return this.memberRoles.assign(game, id, userId, roleId);
  }

  @Delete()
  @ApiOperation({ operationId: 'removeMemberRole', summary: 'Remove a role from a member (idempotent)' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 'role_group_mismatch', 401, 404)
  remove(@CurrentGame() game: GameContext, @Param('id') id: string, @Param('userId') userId: string, @Param('roleId') roleId: string) {
    return this.memberRoles.remove(game, id, userId, roleId);
  }
}
