import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Subject, type Observable } from 'rxjs';
import type { SvcEvent } from './event';

/** A player a committed transaction wrote a notification for (EXTENSIONS X9), by internal id. */
export interface NotifiedPlayer {
  gameId: string;
  svcUserId: string;
}

/**
 * The in-process stream of committed events, and of the players committed transactions notified.
 * Only the unit of work publishes to it, and only after the transaction has committed.
 */
@Injectable()
export class EventBus implements OnApplicationShutdown {
  private readonly subject = new Subject<SvcEvent>();
  private readonly notified = new Subject<NotifiedPlayer>();
  /** This application instance, as the origin of the events it announces to the others. */
  readonly instanceId = randomUUID();

  get events$(): Observable<SvcEvent> {
    return this.subject.asObservable();
  }

  publish(events: readonly SvcEvent[]): void {
    for (const e of events) this.subject.next(e);
  }

  /** The players a committed transaction wrote a notification for (EXTENSIONS X9). */
  get notified$(): Observable<NotifiedPlayer> {
    return this.notified.asObservable();
  }

  publishNotified(players: readonly NotifiedPlayer[]): void {
    for (const p of players) this.notified.next(p);
  }

  onApplicationShutdown(): void {
    this.subject.complete();
    this.notified.complete();
  }
}
