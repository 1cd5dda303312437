import type { ServerResponse } from 'node:http';
import type { FeedPosition } from '../events/feed-position';
import { OrderedStream } from '../events/ordered-stream';
import type { StreamStats } from '../events/stream-stats';
import type { NotificationDto } from './dto/notification.dto';
import type { ReadSignal } from './notification-channel';
import type { StreamedNotification } from './notification-feed.repository';

/** The SSE frame of a notification (EXTENSIONS X9): its id as the frame's, the Notification as data. */
export function notificationFrame(n: NotificationDto): string {
  return `id: ${n.id}\nevent: notification\ndata: ${JSON.stringify(n)}\n\n`;
}

/**
 * The frame of read marks made on any device: `{ ids }` (those that were unread) or `{ all, before }`.
 * No id: it is no position a client could resume from.
 */
export function readFrame(signal: ReadSignal): string {
  const data = 'all' in signal ? { all: true, before: signal.before } : { ids: signal.ids };
  return `event: notifications.read\ndata: ${JSON.stringify(data)}\n\n`;
}

/** One open stream of a player's notifications: in feed order, with the read marks between them. */
export class NotificationSubscriber extends OrderedStream {
  constructor(res: ServerResponse, position: FeedPosition, replaying: boolean, stats: StreamStats) {
    super(res, position, replaying, 'notifications', stats);
  }

  /** A notification from the live tail, in feed order; `frame` is shared by the player's subscribers. */
  offer(n: StreamedNotification, frame: () => Buffer): void {
    this.offerAt(n.position, frame);
  }

  /** A replayed notification; resolves once the socket can take more (backpressure). */
  replayed(n: StreamedNotification): Promise<void> {
    return this.replayedAt(n.position, notificationFrame(n.view));
  }
}
