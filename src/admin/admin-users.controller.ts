import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { AdminUsersService } from './admin-users.service';
import { ADMIN_USER_ID_MAX, AdminUserDto, AdminUserQueryDto } from './dto/admin-users.dto';

/**
 * A user's page in a game, for the operator console. The path is shared with the identity link
 * (PUT, src/identity), whose parameter name it keeps so the API document holds one path.
 */
@ApiTags('admin: users')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/users')
export class AdminUsersController {
  constructor(private readonly users: AdminUsersService) {}

  @Get(':externalUserId')
  @MinRole('viewer')
  @ApiOperation({
    operationId: 'adminGetUser',
    summary:
      "A user of the game by the id the game uses: internal id, first seen, memberships in the game's groups (paged), " +
      'the game ban in force, group bans in force, and the counts of their friends, friend requests and blocks',
  })
  @ApiParam({
    name: 'externalUserId',
    description: `the user id the game uses (1-${ADMIN_USER_ID_MAX} characters); a user the game has never seen is 404`,
    schema: { type: 'string', minLength: 1, maxLength: ADMIN_USER_ID_MAX },
  })
  @ApiOkResponse({ type: AdminUserDto })
  @ApiErrors(400, 401, 404)
  get(
    @Param('gameId') gameId: string,
    @Param('externalUserId') externalUserId: string,
    @Query() query: AdminUserQueryDto,
  ): Promise<AdminUserDto> {
    return this.users.get(gameId, externalUserId, query);
  }
}
