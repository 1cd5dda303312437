import { Global, Module } from '@nestjs/common';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { EventBus } from './event-bus';
import { EventMetrics } from './event-metrics';
import { EventStreams } from './event-streams';
import { EventsController } from './events.controller';
import { FeedRepository } from './feed.repository';
import { FeedService } from './feed.service';
import { StreamOpener } from './stream-opener';
import { StreamStats } from './stream-stats';

@Global()
@Module({
  imports: [GroupsCoreModule],
  controllers: [EventsController],
  providers: [EventBus, EventStreams, EventMetrics, FeedRepository, FeedService, StreamOpener, StreamStats],
  exports: [EventBus, FeedService, StreamOpener, StreamStats],
})
export class EventsModule {}
