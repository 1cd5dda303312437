import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { INTERNAL_USER_ID_EXAMPLE } from '../openapi/examples';
import { AdminService } from './admin.service';
import { UserGamesDto } from './dto/admin.dto';

/** The one admin route outside /v1/admin (SPEC §5): it takes the admin token, never an API key. */
@ApiTags('admin: users')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/users/:svcUserId/games')
export class UserGamesController {
  constructor(private readonly admin: AdminService) {}

  @Get()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listUserGames', summary: 'The games an internal user has an identity in, with active memberships per game' })
  @ApiParam({
    name: 'svcUserId',
    example: INTERNAL_USER_ID_EXAMPLE,
    description: 'an internal user id (the svcUserId of the admin members list), not an external id',
  })
  @ApiOkResponse({ type: UserGamesDto })
  @ApiErrors(401)
  games(@Param('svcUserId') svcUserId: string): Promise<UserGamesDto> {
    return this.admin.userGames(svcUserId);
  }
}
