import { Controller, Get, Param, type StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiUserExport, EXPORT_DESCRIPTION } from './dto/user-export.dto';
import { pathUserId } from './user-id';
import { UserExportService } from './user-export.service';

/** The console's twin of `GET /v1/users/:userId/export`, for any game. */
@ApiTags('admin: users')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/users')
export class AdminUserExportController {
  constructor(private readonly exports: UserExportService) {}

  @Get(':externalUserId/export')
  @MinRole('viewer')
  @ApiOperation({
    operationId: 'adminExportUser',
    summary: "Everything a game holds about a user, as GET /v1/users/{userId}/export answers it for the game's key",
    description: `${EXPORT_DESCRIPTION} An unknown game is 404.`,
  })
  @ApiUserExport()
  @ApiErrors(400, 401, 404)
  export(@Param('gameId') gameId: string, @Param('externalUserId') userId: string): Promise<StreamableFile> {
    return this.exports.exportForAdmin(gameId, pathUserId(userId));
  }
}
