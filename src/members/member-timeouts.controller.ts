import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { MemberDto } from './dto/member.dto';
import { LiftTimeoutDto, TimeoutMemberDto } from './dto/member-timeout.dto';
import { MemberTimeoutsService } from './member-timeouts.service';

/** Member timeouts (EXTENSIONS X10). */
@ApiTags('members')
@ApiBearerAuth('apiKey')
@Controller('v1/groups/:id/members/:userId/timeout')
export class MemberTimeoutsController {
  constructor(private readonly timeouts: MemberTimeoutsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'timeoutMember',
    summary:
      "Time out an active member for a duration (at most 28d), or replace the end of the timeout in force: until it ends the check denies the game's moderation.timeoutDeniedPermissions",
  })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 401, 404, 'not_a_member')
  timeout(@CurrentGame() game: GameContext, @Param('id') id: string, @Param('userId') userId: string, @Body() body: TimeoutMemberDto): Promise<MemberDto> {
    return this.timeouts.timeout(game, id, userId, body);
  }

  @Delete()
  @ApiOperation({ operationId: 'liftMemberTimeout', summary: 'Lift the timeout in force (member of any status); with none in force the member comes back unchanged and nothing is written' })
  @ApiBody({ type: LiftTimeoutDto, required: false, description: 'may be omitted: no reason is recorded' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 401, 404)
  lift(@CurrentGame() game: GameContext, @Param('id') id: string, @Param('userId') userId: string, @Body() body: LiftTimeoutDto): Promise<MemberDto> {
    return this.timeouts.lift(game, id, userId, body ?? {});
  }
}
