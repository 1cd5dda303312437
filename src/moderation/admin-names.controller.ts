import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGameScope } from '../admin/admin-game-scope';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { NamesScanResultDto, NamesTestDto, NamesTestResultDto } from './dto/names-test.dto';
import { NamePolicies } from './name-policies';
import { NamesScanService } from './names-scan.service';

/** An operator tries a text against the game's name policy before players meet it, or checks the groups that exist against it. */
@ApiTags('admin: moderation')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/names')
export class AdminNamesController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly names: NamePolicies,
    private readonly scanner: NamesScanService,
  ) {}

  @Post('test')
  @HttpCode(200)
  @MinRole('moderator')
  @ApiOperation({
    operationId: 'adminTestName',
    summary: "The blocked and reserved words of the game's name policy found in a text, with their places; reads only",
  })
  @ApiOkResponse({ type: NamesTestResultDto })
  @ApiErrors(400, 401, 404)
  async test(@Param('gameId') gameId: string, @Body() body: NamesTestDto): Promise<NamesTestResultDto> {
    const { gameId: id } = await this.scope.of(gameId);
    const matches = (await this.names.matcherOf(id)).match(body.text);
    return { allowed: matches.length === 0, matches };
  }

  @Post('scan')
  @HttpCode(200)
  @MinRole('moderator')
  @ApiOperation({
    operationId: 'adminScanNames',
    summary:
      "Match every live group's name and tags against the game's blocked words as they stand now; each group matched gets an offensive_name report filed by the service (no reporter), unless one of the service's is open on it already",
  })
  @ApiOkResponse({ type: NamesScanResultDto })
  @ApiErrors(401, 404)
  async scan(@Param('gameId') gameId: string, @Acting() by: ActingOperator): Promise<NamesScanResultDto> {
    const { gameId: id } = await this.scope.of(gameId);
    return this.scanner.scan(id, by);
  }
}
