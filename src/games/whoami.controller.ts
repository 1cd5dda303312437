import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { WhoamiDto } from './dto/api-key.dto';
import { GamesService } from './games.service';

@ApiTags('keys')
@ApiBearerAuth('apiKey')
@Controller('v1/whoami')
export class WhoamiController {
  constructor(private readonly games: GamesService) {}

  @Get()
  @ApiOperation({ operationId: 'whoami', summary: 'Verify an API key: the game and key it resolves to' })
  @ApiOkResponse({ type: WhoamiDto })
  @ApiErrors(401)
  whoami(@CurrentGame() game: GameContext): Promise<WhoamiDto> {
    return this.games.whoami(game);
  }
}
