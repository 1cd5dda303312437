import { Global, Module } from '@nestjs/common';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { EventBus } from './event-bus';
import { EventMetrics } from './event-metrics';
import { EventStreams } from './event-streams';
import { EventsController } from './events.controller';
import { FeedRepository } from './feed.repository';
import { FeedService } from './feed.service';
import { StreamOpener } from './stream-opener';

@Global()
@Module({
  imports: [GroupsCoreModule],
  controllers: [EventsController],
  providers: [EventBus, EventStreams, EventMetrics, FeedRepository, FeedService, StreamOpener],
  exports: [EventBus, FeedService, StreamOpener],
})
export class EventsModule {}
