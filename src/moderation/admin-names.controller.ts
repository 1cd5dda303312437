import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGameScope } from '../admin/admin-game-scope';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { NamesTestDto, NamesTestResultDto } from './dto/names-test.dto';
import { NamePolicies } from './name-policies';

/** An operator tries a text against the game's name policy before players meet it. */
@ApiTags('admin: moderation')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/names')
export class AdminNamesController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly names: NamePolicies,
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
}
