import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { UpdateVisibilityDto, VisibilityDto } from './dto/friends.dto';
import { VisibilityService } from './visibility.service';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

@ApiTags('friends')
@ApiBearerAuth('apiKey')
@Controller('v1/users/:userId/visibility')
export class VisibilityController {
  constructor(private readonly visibility: VisibilityService) {}

  @ReplicaRead()
  @Get()
  @ApiOperation({ operationId: 'getFriendsVisibility', summary: "A user's friendsListVisibility (or the configured default) and the game's allowed values" })
  @ApiOkResponse({ type: VisibilityDto })
  @ApiErrors(401, 404)
  get(@CurrentGame() game: GameContext, @Param('userId') userId: string): Promise<VisibilityDto> {
    return this.visibility.get(game, userId);
  }

  @Patch()
  @ApiOperation({ operationId: 'setFriendsVisibility',
    summary: "Set a user's friendsListVisibility to one of the game's allowed values",
    description: 'A user the game has never seen is anchored first, so the answer is 200, not 404; 404 means friends are off.',
  })
  @ApiOkResponse({ type: VisibilityDto })
  @ApiErrors(400, 401, 404)
  set(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Body() body: UpdateVisibilityDto): Promise<VisibilityDto> {
    return this.visibility.set(game, userId, body.friendsListVisibility);
  }
}
