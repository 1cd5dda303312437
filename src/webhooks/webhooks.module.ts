import { Module } from '@nestjs/common';
import { DeliveryWorker } from './delivery-worker';

@Module({ providers: [DeliveryWorker], exports: [DeliveryWorker] })
export class WebhooksModule {}
