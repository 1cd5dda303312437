import { Module } from '@nestjs/common';
import { DeliveryLogController } from './delivery-log.controller';
import { DeliveryLogRepository } from './delivery-log.repository';
import { DeliveryLogService } from './delivery-log.service';
import { DeliveryWorker } from './delivery-worker';
import { WebhookMetrics } from './webhook-metrics';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  controllers: [WebhooksController, DeliveryLogController],
  providers: [WebhooksRepository, WebhooksService, DeliveryLogRepository, DeliveryLogService, DeliveryWorker, WebhookMetrics],
  exports: [DeliveryWorker, WebhooksService, DeliveryLogService],
})
export class WebhooksModule {}
