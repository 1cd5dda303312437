import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { logFailure } from '../common/errors/log-failure';
import { PgListener } from '../db/pg-listener';
import { sqlRows } from '../db/sql';
import type { SvcEvent } from './event';
import { EventBus } from './event-bus';
import { decodeEventNotification, EVENTS_CHANNEL } from './event-notification';

/**
 * Hands this instance's stream the group events committed by OTHER instances, as Postgres
 * delivers their NOTIFY (sent inside the committing transaction, so only on commit).
 */
@Injectable()
export class EventRelay implements OnModuleInit {
  private readonly logger = new Logger(EventRelay.name);

  constructor(
    private readonly listener: PgListener,
    private readonly bus: EventBus,
    private readonly ds: DataSource,
  ) {}

  onModuleInit(): void {
    this.listener.subscribe(EVENTS_CHANNEL, (payload) => this.relay(payload));
  }

  private relay(payload: string): void {
    const n = decodeEventNotification(payload);
    if (!n || n.origin === this.bus.instanceId) return;
    if ('event' in n) {
      this.bus.publish([n.event]);
      return;
    }
    sqlRows<{ body: SvcEvent }>(this.ds.manager, 'SELECT body FROM outbox_events WHERE id = $1', [n.ref])
      .then(([row]) => row && this.bus.publish([row.body]))
      .catch((err) => logFailure(this.logger, err, 'could not load a relayed event', { eventId: n.ref }));
  }
}
