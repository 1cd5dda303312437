import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, PageQueryDto, type Page } from '../common/pagination/page';
import { InvitationWithGroupDto } from './dto/invitation.dto';
import { InvitationsService } from './invitations.service';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

/** A player's invitation inbox (EXTENSIONS X6): `/v1/users/:userId/invitations`. */
@ApiTags('invitations')
@ApiBearerAuth('apiKey')
@Controller('v1/users')
export class UserInvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @ReplicaRead()
  @Get(':userId/invitations')
  @ApiOperation({
    operationId: 'listUserInvitations',
    summary: 'The invitations a user can accept now, newest first: targeted at them, unused, unexpired, in live groups',
    description:
      "For a game's \"your invitations\" screen. Open codes are not listed (they name nobody). A user the game has never " +
      'seen gets the invitations targeted at their id all the same, and an id with none an empty page, never 404. Bans, ' +
      'membership and member caps are checked when the invitation is accepted, not here.',
  })
  @ApiPageResponse(InvitationWithGroupDto)
  @ApiErrors(400, 401)
  list(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Query() query: PageQueryDto): Promise<Page<InvitationWithGroupDto>> {
    return this.invitations.inbox(game, userId, query);
  }
}
