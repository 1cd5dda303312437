import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, PageQueryDto, type Page } from '../common/pagination/page';
import { RotatedSecretDto, RotateSecretDto } from './dto/rotate-secret.dto';
import { CreatedWebhookDto, CreateWebhookDto, UpdateWebhookDto, WebhookDto } from './dto/webhook.dto';
import { WebhooksService } from './webhooks.service';

@ApiTags('webhooks')
@ApiBearerAuth('apiKey')
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiOperation({ operationId: 'createWebhook', summary: 'Register a webhook endpoint; the signing secret is returned only here' })
  @ApiCreatedResponse({ type: CreatedWebhookDto })
  @ApiErrors(400, 401)
  create(@CurrentGame() game: GameContext, @Body() body: CreateWebhookDto): Promise<CreatedWebhookDto> {
    return this.webhooks.create(game, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listWebhooks', summary: 'List webhook endpoints, newest first (no secrets)' })
  @ApiPageResponse(WebhookDto)
  @ApiErrors(400, 401)
  list(@CurrentGame() game: GameContext, @Query() query: PageQueryDto): Promise<Page<WebhookDto>> {
    return this.webhooks.list(game, query);
  }

  @Patch(':id')
  @ApiOperation({ operationId: 'updateWebhook', summary: 'Change url, events, format, or mute/unmute an endpoint' })
  @ApiOkResponse({ type: WebhookDto })
  @ApiErrors(400, 401, 404)
  update(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: UpdateWebhookDto): Promise<WebhookDto> {
    return this.webhooks.update(game, id, body);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({ operationId: 'rotateWebhookSecret', summary: 'Replace the signing secret; the old one goes on signing beside it for graceSeconds' })
  @ApiBody({ type: RotateSecretDto, required: false, description: 'may be omitted: a generated secret, an hour of grace' })
  @ApiOkResponse({ type: RotatedSecretDto })
  @ApiErrors(400, 401, 404)
  rotateSecret(@CurrentGame() game: GameContext, @Param('id') id: string, @Body() body: RotateSecretDto): Promise<RotatedSecretDto> {
    return this.webhooks.rotateSecret(game, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteWebhook', summary: 'Remove an endpoint and its pending deliveries' })
  @ApiNoContentResponse()
  @ApiErrors(401, 404)
  async delete(@CurrentGame() game: GameContext, @Param('id') id: string): Promise<void> {
    await this.webhooks.delete(game, id);
  }
}
