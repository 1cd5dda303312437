import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { GrantExpiryDto } from '../permissions/dto/grant-expiry.dto';
import { grantExpiry } from '../permissions/grant-expiry';
import { MemberDto } from './dto/member.dto';
import { MemberRolesService } from './member-roles.service';

@ApiTags('members')
@ApiBearerAuth('apiKey')
@Controller('v1/groups/:id/members/:userId/roles/:roleId')
export class MemberRolesController {
  constructor(private readonly memberRoles: MemberRolesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'assignMemberRole', summary: 'Assign a role of the group to a member (idempotent), for good or until an expiry; assigning again replaces the expiry' })
  @ApiBody({ type: GrantExpiryDto, required: false, description: 'may be omitted: the assignment is then permanent' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 'role_group_mismatch', 401, 404)
  assign(
    @CurrentGame() game: GameContext,
    @Param('id') id: string,
    @Param('userId') userId: string,
    @Param('roleId') roleId: string,
    @Body() body: GrantExpiryDto,
  ) {
    return this.memberRoles.assign(game, id, userId, roleId, grantExpiry(body));
  }

  @Delete()
  @ApiOperation({ operationId: 'removeMemberRole', summary: 'Remove a role from a member (idempotent)' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 'role_group_mismatch', 401, 404)
  remove(@CurrentGame() game: GameContext, @Param('id') id: string, @Param('userId') userId: string, @Param('roleId') roleId: string) {
    return this.memberRoles.remove(game, id, userId, roleId);
  }
}
