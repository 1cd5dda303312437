import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGameScope } from '../admin/admin-game-scope';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { UserErasureDto } from './dto/user-erasure.dto';
import { UserSubjectDto } from './dto/user-subject.dto';
import { ERASURE_BY_BODY } from './user-erasure.controller';
import { pathUserId } from './user-id';
import { UserErasureService } from './user-erasure.service';

/** The erasure for an operator (the console): the same as the game's route, in the path's game. */
@ApiTags('admin: users')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/users')
export class AdminUserErasureController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly erasure: UserErasureService,
  ) {}

  @Delete(':externalUserId')
  @MinRole('moderator')
  @ApiOperation({ operationId: 'adminEraseUser', summary: 'Erase a player from the game, as DELETE /v1/users/{userId} does for the game' })
  @ApiOkResponse({ type: UserErasureDto })
  @ApiErrors(400, 401, 404)
  async erase(@Param('gameId') gameId: string, @Param('externalUserId') userId: string, @Acting() by: ActingOperator): Promise<UserErasureDto> {
    const id = pathUserId(userId);
    const { gameId: game } = await this.scope.of(gameId);
    return this.erasure.erase(game, id, by);
  }

  @Post('erase')
  @MinRole('moderator')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminEraseUserByBody',
    summary: 'Erase a player from the game, as POST /v1/users/erase does for the game, with the user id in the body',
    description: `An unknown game is 404. ${ERASURE_BY_BODY}`,
  })
  @ApiBody({ type: UserSubjectDto })
  @ApiOkResponse({ type: UserErasureDto })
  @ApiErrors(400, 401, 404)
  async eraseByBody(@Param('gameId') gameId: string, @Body() body: UserSubjectDto, @Acting() by: ActingOperator): Promise<UserErasureDto> {
    const { gameId: game } = await this.scope.of(gameId);
    return this.erasure.erase(game, body.userId, by);
  }
}
