import { Module } from '@nestjs/common';
import { NotificationsController } from './notifications.controller';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';

/**
 * A player's notifications (EXTENSIONS X9): the routes that read and mark them. They are written by
 * the unit of work of each change that causes one (Tx.notifyPlayer), trimmed by the sweeper.
 */
@Module({
  controllers: [NotificationsController],
  providers: [NotificationsRepository, NotificationsService],
})
export class NotificationsModule {}
