import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, PageQueryDto, type Page } from '../common/pagination/page';
import { DeliveryLogService } from '../webhooks/delivery-log.service';
import { DeliveryLogQueryDto, WebhookDeliveryDetailDto, WebhookDeliveryDto } from '../webhooks/dto/delivery-log.dto';
import { WebhookDto } from '../webhooks/dto/webhook.dto';
import { WebhooksService } from '../webhooks/webhooks.service';
import { AdminGameScope } from './admin-game-scope';

@ApiTags('admin: webhooks')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin/games/:gameId/webhooks')
export class AdminWebhooksController {
  constructor(
    private readonly scope: AdminGameScope,
    private readonly webhooks: WebhooksService,
    private readonly log: DeliveryLogService,
  ) {}

  @Get()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminListWebhooks', summary: "The game's webhook endpoints, newest first, without secrets, as GET /v1/webhooks answers them" })
  @ApiPageResponse(WebhookDto)
  @ApiErrors(400, 401, 404)
  async list(@Param('gameId') gameId: string, @Query() query: PageQueryDto): Promise<Page<WebhookDto>> {
    return this.webhooks.list(await this.scope.of(gameId), query);
  }

  @Get(':id/deliveries')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminListWebhookDeliveries', summary: "An endpoint's deliveries, newest first, optionally of one status, as the game route answers them" })
  @ApiPageResponse(WebhookDeliveryDto)
  @ApiErrors(400, 401, 404)
  async deliveries(@Param('gameId') gameId: string, @Param('id') id: string, @Query() query: DeliveryLogQueryDto): Promise<Page<WebhookDeliveryDto>> {
    return this.log.list(await this.scope.of(gameId), id, query);
  }

  @Get(':id/deliveries/:deliveryId')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminGetWebhookDelivery', summary: 'One delivery with every attempt: when, the status code or error, how long it took' })
  @ApiOkResponse({ type: WebhookDeliveryDetailDto })
  @ApiErrors(401, 404)
  async delivery(@Param('gameId') gameId: string, @Param('id') id: string, @Param('deliveryId') deliveryId: string): Promise<WebhookDeliveryDetailDto> {
    return this.log.get(await this.scope.of(gameId), id, deliveryId);
  }
}
