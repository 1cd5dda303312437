import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { UserErasureDto } from './dto/user-erasure.dto';
import { UserSubjectDto } from './dto/user-subject.dto';
import { pathUserId } from './user-id';
import { UserErasureService } from './user-erasure.service';

export const ERASURE_DESCRIPTION =
  'One transaction. The memberships, friends graph, tags, visibility, invitations targeted at the user, join requests, bans ' +
  'and notifications go, and member counts follow; groups they owned pass to their longest-standing other active member, or to ' +
  "nobody (who is notified of it). Every audit entry, retained event and pending webhook delivery naming the user, and other players' " +
  'notifications they caused, name the pseudonym instead. One `user.erased` ' +
  'event and one game-level audit entry are written, and the erasure is recorded in the ledger (a one-way hash). Afterwards ' +
  'the game has never seen the user. A user the game has never seen is erased all the same: 200 with zero counts.';

/** What the body routes add: the id is in the body, so it may be longer than a path carries. */
export const ERASURE_BY_BODY = 'The user id is named in the body, so any id can be erased, however long: a path carries at most 16,384 characters.';

/** A player's erasure in the calling game (EXTENSIONS X7): by path, or with the id in the body. */
@ApiTags('users')
@ApiBearerAuth('apiKey')
@Controller('v1/users')
export class UserErasureController {
  constructor(private readonly erasure: UserErasureService) {}

  @Delete(':userId')
  @ApiOperation({
    operationId: 'eraseUser',
    summary: "Erase a player from the game: their data removed, their ids in the game's history replaced by a pseudonym",
    description: ERASURE_DESCRIPTION,
  })
  @ApiOkResponse({ type: UserErasureDto })
  @ApiErrors(400, 401)
  erase(@CurrentGame() game: GameContext, @Param('userId') userId: string): Promise<UserErasureDto> {
    return this.erasure.erase(game.gameId, pathUserId(userId));
  }

  @Post('erase')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'eraseUserByBody',
    summary: 'The same erasure as DELETE /v1/users/{userId}, for a user id named in the body (of any length)',
    description: `${ERASURE_DESCRIPTION} ${ERASURE_BY_BODY}`,
  })
  @ApiBody({ type: UserSubjectDto })
  @ApiOkResponse({ type: UserErasureDto })
  @ApiErrors(400, 401)
  eraseByBody(@CurrentGame() game: GameContext, @Body() body: UserSubjectDto): Promise<UserErasureDto> {
    return this.erasure.erase(game.gameId, body.userId);
  }
}
