import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentGame, type GameContext } from '../common/auth/game-context';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import { ApiPageResponse, type Page } from '../common/pagination/page';
import { DeliveryLogService } from './delivery-log.service';
import { DeliveryLogQueryDto, WebhookDeliveryDetailDto, WebhookDeliveryDto } from './dto/delivery-log.dto';

@ApiTags('webhooks')
@ApiBearerAuth('apiKey')
@Controller('v1/webhooks')
export class DeliveryLogController {
  constructor(private readonly log: DeliveryLogService) {}

  @Get(':id/deliveries')
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: "List an endpoint's deliveries, newest first, optionally of one status" })
  @ApiPageResponse(WebhookDeliveryDto)
  @ApiErrors(400, 401, 404)
  list(@CurrentGame() game: GameContext, @Param('id') id: string, @Query() query: DeliveryLogQueryDto): Promise<Page<WebhookDeliveryDto>> {
    return this.log.list(game, id, query);
  }

  @Get(':id/deliveries/:deliveryId')
  @ApiOperation({ operationId: 'getWebhookDelivery', summary: 'One delivery with every attempt: when, the status code or error, how long it took' })
  @ApiOkResponse({ type: WebhookDeliveryDetailDto })
  @ApiErrors(401, 404)
  get(@CurrentGame() game: GameContext, @Param('id') id: string, @Param('deliveryId') deliveryId: string): Promise<WebhookDeliveryDetailDto> {
    return this.log.get(game, id, deliveryId);
  }
}
