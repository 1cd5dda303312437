import { Module } from '@nestjs/common';
import { NotificationFeedRepository } from './notification-feed.repository';
import { NotificationStreamController } from './notification-stream.controller';
import { NotificationStreamOpener } from './notification-stream-opener';
import { NotificationStreams } from './notification-streams';

/** A player's notifications (EXTENSIONS X9): their stream. */
@Module({
  controllers: [NotificationStreamController],
  providers: [NotificationFeedRepository, NotificationStreamOpener, NotificationStreams],
})
export class NotificationsModule {}
