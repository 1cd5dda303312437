import { Module } from '@nestjs/common';
import { GamesModule } from '../games/games.module';
import { AdminNotificationsController } from './admin-notifications.controller';
import { NotificationCountsCache } from './notification-counts-cache';
import { NotificationFeedRepository } from './notification-feed.repository';
import { NotificationStreamController } from './notification-stream.controller';
import { NotificationStreamOpener } from './notification-stream-opener';
import { NotificationStreams } from './notification-streams';
import { NotificationsController } from './notifications.controller';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';

/**
 * A player's notifications (EXTENSIONS X9): the routes that read and mark them, their stream, and
 * the operators' read of them. They are written by the unit of work of each change that causes one
 * (Tx.notifyPlayer), trimmed by the sweeper.
 */
@Module({
  imports: [GamesModule],
  controllers: [NotificationsController, NotificationStreamController, AdminNotificationsController],
  providers: [NotificationCountsCache, NotificationsRepository, NotificationsService, NotificationFeedRepository, NotificationStreamOpener, NotificationStreams],
})
export class NotificationsModule {}
