import { Controller, Get, Param, type StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiUserExport, EXPORT_DESCRIPTION } from './dto/user-export.dto';
import { pathUserId } from './user-id';
import { UserExportService } from './user-export.service';

/** A player's data (EXTENSIONS X7): `/v1/users/:userId/export`. */
@ApiTags('users')
@ApiBearerAuth('apiKey')
@Controller('v1/users')
export class UserExportController {
  constructor(private readonly exports: UserExportService) {}

  @Get(':userId/export')
  @ApiOperation({
    operationId: 'exportUser',
    summary: 'Everything the game holds about a user, as one JSON document (streamed)',
    description: EXPORT_DESCRIPTION,
  })
  @ApiUserExport()
  @ApiErrors(400, 401, 404)
  export(@CurrentGame() game: GameContext, @Param('userId') userId: string): Promise<StreamableFile> {
    return this.exports.export(game, pathUserId(userId));
  }
}
