import { Controller, Delete, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { UserErasureDto } from './dto/user-erasure.dto';
import { pathUserId } from './user-id';
import { UserErasureService } from './user-erasure.service';

/** A player's erasure in the calling game (EXTENSIONS X7). */
@ApiTags('users')
@ApiBearerAuth('apiKey')
@Controller('v1/users')
export class UserErasureController {
  constructor(private readonly erasure: UserErasureService) {}

  @Delete(':userId')
  @ApiOperation({
    operationId: 'eraseUser',
    summary: "Erase a player from the game: their data removed, their ids in the game's history replaced by a pseudonym",
    description:
      'One transaction. The memberships, friends graph, tags, visibility, invitations targeted at the user, join requests and bans ' +
      'go, and member counts follow; groups they owned pass to their longest-standing other active member, or to nobody. Every ' +
      'audit entry, retained event and pending webhook delivery naming the user names the pseudonym instead. One `user.erased` ' +
      'event and one game-level audit entry are written, and the erasure is recorded in the ledger (a one-way hash). Afterwards ' +
      'the game has never seen the user. A user the game has never seen is erased all the same: 200 with zero counts.',
  })
  @ApiOkResponse({ type: UserErasureDto })
  @ApiErrors(400, 401)
  erase(@CurrentGame() game: GameContext, @Param('userId') userId: string): Promise<UserErasureDto> {
    return this.erasure.erase(game.gameId, pathUserId(userId));
  }
}
