import { Global, Module } from '@nestjs/common';
import { GroupsCoreModule } from '../groups/groups-core.module';
import { EventBus } from './event-bus';
import { EventRelay } from './event-relay';
import { EventStreams } from './event-streams';
import { EventsController } from './events.controller';

@Global()
@Module({
  imports: [GroupsCoreModule],
  controllers: [EventsController],
  providers: [EventBus, EventRelay, EventStreams],
  exports: [EventBus],
})
export class EventsModule {}
