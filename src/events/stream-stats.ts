import { Injectable } from '@nestjs/common';

/**
 * Who opened a stream: a game's (GET /v1/events), a group's (GET /v1/events/:groupId), an
 * operator's (the admin twins), or a player's notifications (GET /v1/users/:userId/notifications/stream).
 */
export type StreamKind = 'game' | 'group' | 'admin' | 'notifications';
export const STREAM_KINDS: readonly StreamKind[] = ['game', 'group', 'admin', 'notifications'];

const perKind = (): Record<StreamKind, number> => ({ game: 0, group: 0, admin: 0, notifications: 0 });

/**
 * Running totals of this instance's streams, whichever hub feeds them (the events' and the
 * notifications'), read by the metrics at scrape time (plain numbers: a frame costs an increment).
 */
@Injectable()
export class StreamStats {
  readonly framesSent: Record<StreamKind, number> = perKind();
  /**
   * Streams ended by the service: `slow`, over 4 MiB behind; `rewound`, the database no longer
   * holds what they were sent; `unheard`, a notification stream whose instance lost its LISTEN
   * connection for a while (the read marks announced meanwhile never reached it).
   */
  readonly cutOff = { slow: 0, rewound: 0, unheard: 0 };
  private readonly hubs: (() => Partial<Record<StreamKind, number>>)[] = [];

  /** A hub of streams registers how to count its open ones. */
  countOpen(count: () => Partial<Record<StreamKind, number>>): void {
    this.hubs.push(count);
  }

  /** Open streams by kind, over every hub. */
  open(): Record<StreamKind, number> {
    const counts = perKind();
    for (const hub of this.hubs) for (const [kind, n] of Object.entries(hub()) as [StreamKind, number][]) counts[kind] += n;
    return counts;
  }
}
