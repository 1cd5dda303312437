import { Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGameScope } from '../admin/admin-game-scope';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { GroupDto } from './dto/group.dto';
import { GroupsService } from './groups.service';

/**
 * A group's soft delete and restore for an operator, through the game routes' service in the
 * path's game. No hard delete here: what an operator removes stays restorable for the window.
 */
@ApiTags('admin: moderation')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/groups/:groupId')
export class AdminGroupLifecycleController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly groups: GroupsService,
  ) {}

  @Delete()
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminDeleteGroup', summary: 'Soft-delete a group (restorable for 7 days), as DELETE /v1/groups/{id} does without hard' })
  @ApiOkResponse({ type: GroupDto })
  @ApiErrors(401, 404)
  async delete(@Param('gameId') gameId: string, @Param('groupId') groupId: string, @Acting() by: ActingOperator): Promise<GroupDto> {
    const group = await this.groups.delete(await this.scope.of(gameId), groupId, false, by);
    // A soft delete always answers the group; null is the hard delete's, never asked here.
    if (!group) throw new Error('a soft delete answered no group');
    return group;
  }

  @Post('restore')
  @HttpCode(200)
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminRestoreGroup', summary: 'Restore a soft-deleted group within 7 days, as POST /v1/groups/{id}/restore does' })
  @ApiOkResponse({ type: GroupDto })
  @ApiErrors(401, 404, 'restore_window_expired')
  async restore(@Param('gameId') gameId: string, @Param('groupId') groupId: string, @Acting() by: ActingOperator): Promise<GroupDto> {
    return this.groups.restore(await this.scope.of(gameId), groupId, by);
  }
}
