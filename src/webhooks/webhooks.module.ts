import { Module } from '@nestjs/common';
import { DeliveryWorker } from './delivery-worker';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, DeliveryWorker],
  exports: [DeliveryWorker],
})
export class WebhooksModule {}
