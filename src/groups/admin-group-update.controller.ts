import { Body, Controller, Param, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGameScope } from '../admin/admin-game-scope';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { GroupDto, UpdateGroupDto } from './dto/group.dto';
import { GroupsService } from './groups.service';

/**
 * An operator's edit of a group (a rename first of all), through the game route's service in the
 * path's game: the same body, answer, audit and event, plus the operator audit. The game's
 * reserved words are allowed here, its blocked words are not (EXTENSIONS X10).
 */
@ApiTags('admin: moderation')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/groups/:groupId')
export class AdminGroupUpdateController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly groups: GroupsService,
  ) {}

  @Patch()
  @MinRole('moderator')
  @ApiOperation({
    operationId: 'adminUpdateGroup',
    summary: "Update a group as PATCH /v1/groups/{id} does; the game's reserved words are allowed in its name and tags, blocked words are not",
  })
  @ApiOkResponse({ type: GroupDto })
  @ApiErrors(400, 401, 404, 'name_not_allowed')
  async update(
    @Param('gameId') gameId: string,
    @Param('groupId') groupId: string,
    @Body() body: UpdateGroupDto,
    @Acting() by: ActingOperator,
  ): Promise<GroupDto> {
    return this.groups.update(await this.scope.of(gameId), groupId, body, by);
  }
}
