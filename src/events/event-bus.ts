import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Subject, type Observable } from 'rxjs';
import type { SvcEvent } from './event';

/**
 * The in-process stream of committed events. Only the unit of work publishes to it, and only
 * after the transaction that staged the events has committed.
 */
@Injectable()
export class EventBus implements OnApplicationShutdown {
  private readonly subject = new Subject<SvcEvent>();

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
