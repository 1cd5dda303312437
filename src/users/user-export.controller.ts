import { Body, Controller, Get, HttpCode, Param, Post, type StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiUserExport, EXPORT_BY_BODY, EXPORT_DESCRIPTION } from './dto/user-export.dto';
import { UserSubjectDto } from './dto/user-subject.dto';
import { pathUserId } from './user-id';
import { UserExportService } from './user-export.service';

/** A player's data (EXTENSIONS X7): `/v1/users/:userId/export`, and the same with the id in the body. */
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
    return this.exports.exportForGame(game, pathUserId(userId));
  }

  @Post('export')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'exportUserByBody',
    summary: 'The same export as GET /v1/users/{userId}/export, for a user id named in the body (of any length)',
    description: `${EXPORT_DESCRIPTION} ${EXPORT_BY_BODY}`,
  })
  @ApiBody({ type: UserSubjectDto })
  @ApiUserExport()
  @ApiErrors(400, 401, 404)
  exportByBody(@CurrentGame() game: GameContext, @Body() body: UserSubjectDto): Promise<StreamableFile> {
    return this.exports.exportForGame(game, body.userId);
  }
}
