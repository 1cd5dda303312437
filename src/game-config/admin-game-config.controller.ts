import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { GameConfigDto, PatchGameConfigDto } from './dto/game-config.dto';
import { GameConfigService } from './game-config.service';

@ApiTags('admin: game config')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/config')
export class AdminGameConfigController {
  constructor(private readonly configs: GameConfigService) {}

  @Get()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetGameConfig', summary: "A game's config, resolved with the defaults, and its networkId" })
  @ApiOkResponse({ type: GameConfigDto })
  @ApiErrors(401, 404)
  get(@Param('gameId') gameId: string): Promise<GameConfigDto> {
    return this.configs.get(gameId);
  }

  @Patch()
  @MinRole('admin')
  @ApiOperation({ operationId: 'adminUpdateGameConfig', summary: 'Deep-merge a partial config (null resets a branch) and/or set the networkId' })
  @ApiOkResponse({ type: GameConfigDto })
  @ApiErrors(400, 401, 404)
  patch(@Param('gameId') gameId: string, @Body() body: PatchGameConfigDto, @Acting() by: ActingOperator): Promise<GameConfigDto> {
    return this.configs.patch(gameId, body, by);
  }
}
