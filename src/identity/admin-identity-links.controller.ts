import { Body, Controller, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { IdentityLinkDto, LinkIdentityDto } from './dto/identity-link.dto';
import { IdentityLinksService } from './identity-links.service';

@ApiTags('admin: identities')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/users')
export class AdminIdentityLinksController {
  constructor(private readonly links: IdentityLinksService) {}

  @Put(':externalUserId')
  @MinRole('admin')
  @ApiOperation({ operationId: 'adminLinkIdentity', summary: "Anchor an external id of this game to an existing internal user (idempotent)" })
  @ApiOkResponse({ type: IdentityLinkDto })
  @ApiErrors(400, 401, 404, 'already_linked')
  link(
    @Param('gameId') gameId: string,
    @Param('externalUserId') externalUserId: string,
    @Body() body: LinkIdentityDto,
    @Acting() by: ActingOperator,
  ): Promise<IdentityLinkDto> {
    return this.links.link(gameId, externalUserId, body.svcUserId, by);
  }
}
