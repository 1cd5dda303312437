import { Body, Controller, Get, HttpCode, Param, Post, type StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiUserExport, EXPORT_BY_BODY, EXPORT_DESCRIPTION } from './dto/user-export.dto';
import { UserSubjectDto } from './dto/user-subject.dto';
import { pathUserId } from './user-id';
import { UserExportService } from './user-export.service';

const ADMIN_EXPORT = `${EXPORT_DESCRIPTION} An unknown game is 404. Recorded in the operator audit (user.exported) as well as the game's.`;

/** The console's twin of `GET /v1/users/:userId/export` (and of its body route), for any game. */
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
    description: ADMIN_EXPORT,
  })
  @ApiUserExport()
  @ApiErrors(400, 401, 404)
  export(@Param('gameId') gameId: string, @Param('externalUserId') userId: string, @Acting() by: ActingOperator): Promise<StreamableFile> {
    return this.exports.exportForAdmin(gameId, pathUserId(userId), by);
  }

  @Post('export')
  @MinRole('viewer')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminExportUserByBody',
    summary: 'The same export as GET /v1/admin/games/{gameId}/users/{userId}/export, for a user id named in the body (of any length)',
    description: `${ADMIN_EXPORT} ${EXPORT_BY_BODY}`,
  })
  @ApiBody({ type: UserSubjectDto })
  @ApiUserExport()
  @ApiErrors(400, 401, 404)
  exportByBody(@Param('gameId') gameId: string, @Body() body: UserSubjectDto, @Acting() by: ActingOperator): Promise<StreamableFile> {
    return this.exports.exportForAdmin(gameId, body.userId, by);
  }
}
