import { Module } from '@nestjs/common';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { DeliveryLogController } from './delivery-log.controller';
import { DeliveryLogRepository } from './delivery-log.repository';
import { DeliveryLogService } from './delivery-log.service';
import { DeliverySender } from './delivery-sender';
import { DeliveryWorker } from './delivery-worker';
import { HostAddresses } from './host-addresses';
import { HostResolver } from './host-resolver';
import { WebhookMetrics } from './webhook-metrics';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { PastLeaseRepository } from './past-lease.repository';
import { PositionsRepository } from './positions.repository';
import { WebhooksService } from './webhooks.service';

/**
 * The sender under the process's private-hosts policy; at each connection it resolves through
 * HostResolver and reads this server's addresses from HostAddresses.
 */
const deliverySender = {
  provide: DeliverySender,
  useFactory: (settings: Settings, resolver: HostResolver, own: HostAddresses) =>
    new DeliverySender(
      settings.webhookAllowPrivateHosts,
      (host: string, options: { family?: number; hints?: number }) => resolver.lookup(host, options),
      () => own.current(),
    ),
  inject: [SETTINGS, HostResolver, HostAddresses],
};

@Module({
  controllers: [WebhooksController, DeliveryLogController],
  providers: [WebhooksRepository, PositionsRepository, PastLeaseRepository, WebhooksService, DeliveryLogRepository, DeliveryLogService, DeliveryWorker, WebhookMetrics, HostResolver, HostAddresses, deliverySender],
  exports: [DeliveryWorker, WebhooksService, DeliveryLogService],
})
export class WebhooksModule {}
