import { Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

@Module({ imports: [WebhooksModule], controllers: [HealthController], providers: [HealthService] })
export class HealthModule {}
