import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { SuggestionsDto, SuggestionsQueryDto } from './dto/friends.dto';
import { SuggestionsService } from './suggestions.service';
import { ReplicaRead } from '../db/replica/replica-read.decorator';

@ApiTags('friends')
@ApiBearerAuth('apiKey')
@Controller('v1/users/:userId/friends/suggestions')
export class SuggestionsController {
  constructor(private readonly suggestions: SuggestionsService) {}

  @ReplicaRead()
  @Get()
  @ApiOperation({ operationId: 'suggestFriends', summary: 'Friends of friends sharing at least friends.discovery.minMutuals mutual friends' })
  @ApiOkResponse({ type: SuggestionsDto })
  @ApiErrors(400, 401, 404)
  suggest(@CurrentGame() game: GameContext, @Param('userId') userId: string, @Query() query: SuggestionsQueryDto): Promise<SuggestionsDto> {
    return this.suggestions.suggest(game, userId, query.limit);
  }
}
