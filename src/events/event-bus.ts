import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Subject, type Observable } from 'rxjs';
import type { SvcEvent } from './event';

/**
 * The in-process stream of committed events. Only the unit of work publishes to it, and only
 * after the transaction that staged the events has committed.
 */
@Injectable()
export class EventBus implements OnApplicationShutdown {
  private readonly subject = new Subject<SvcEvent>();
  /** This application instance, as the origin of the events it announces to the others. */
  readonly instanceId = randomUUID();

  get events$(): Observable<SvcEvent> {
    return this.subject.asObservable();
  }

  publish(events: readonly SvcEvent[]): void {
    for (const e of events) this.subject.next(e);
  }

  onApplicationShutdown(): void {
    this.subject.complete();
  }
}
