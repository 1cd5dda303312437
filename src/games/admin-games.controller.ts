import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiKeyDto, ApiKeyListDto, MintApiKeyDto, MintedApiKeyDto } from './dto/api-key.dto';
import { AdminGameDto, AdminGameListDto, AdminGamesQueryDto, CreateGameDto } from './dto/game.dto';
import { GamesService } from './games.service';

@ApiTags('admin: games and API keys')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games')
export class AdminGamesController {
  constructor(private readonly games: GamesService) {}

  @Post()
  @MinRole('admin')
  @ApiOperation({ operationId: 'adminCreateGame', summary: 'Create a game' })
  @ApiCreatedResponse({ type: AdminGameDto })
  @ApiErrors(400, 401)
  create(@Body() body: CreateGameDto, @Acting() by: ActingOperator): Promise<AdminGameDto> {
    return this.games.createGame(body.name, by);
  }

  @Get()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminListGames', summary: 'List games, newest first' })
  @ApiOkResponse({ type: AdminGameListDto })
  @ApiErrors(400, 401)
  list(@Query() query: AdminGamesQueryDto): Promise<AdminGameListDto> {
    return this.games.listGames(query.limit);
  }

  @Get(':gameId')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetGame', summary: 'Get a game with its counts' })
  @ApiOkResponse({ type: AdminGameDto })
  @ApiErrors(401, 404)
  get(@Param('gameId') gameId: string): Promise<AdminGameDto> {
    return this.games.getGame(gameId);
  }

  @Get(':gameId/api-keys')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminListApiKeys', summary: 'List the API keys of a game, revoked ones included' })
  @ApiOkResponse({ type: ApiKeyListDto })
  @ApiErrors(401, 404)
  listKeys(@Param('gameId') gameId: string): Promise<ApiKeyListDto> {
    return this.games.listKeys(gameId);
  }

  @Post(':gameId/api-keys')
  @MinRole('admin')
  @ApiOperation({ operationId: 'adminMintApiKey', summary: 'Mint an API key; the full key is returned only in this response' })
  @ApiBody({ type: MintApiKeyDto, required: false, description: 'may be omitted (or `{}`): a key with both scopes that never expires' })
  @ApiCreatedResponse({ type: MintedApiKeyDto })
  @ApiErrors(400, 401, 404)
  mintKey(@Param('gameId') gameId: string, @Body() body: MintApiKeyDto, @Acting() by: ActingOperator): Promise<MintedApiKeyDto> {
    return this.games.mintKey(gameId, body, by);
  }

  @Post(':gameId/api-keys/:keyId/revoke')
  @HttpCode(200)
  @MinRole('admin')
  @ApiOperation({ operationId: 'adminRevokeApiKey', summary: 'Revoke an API key (idempotent)' })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiErrors(401, 404)
  revokeKey(@Param('gameId') gameId: string, @Param('keyId') keyId: string, @Acting() by: ActingOperator): Promise<ApiKeyDto> {
    return this.games.revokeKey(gameId, keyId, by);
  }
}
