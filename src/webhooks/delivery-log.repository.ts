import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Keyset } from '../common/pagination/keyset';
import { eventKeySql, eventTypeSql } from '../db/journal-sql';
import { sqlRows } from '../db/sql';
import { untakenSql } from './position-sql';
import { readyAtSql } from './webhooks.repository';
import type { DeliveryStatus } from './dto/delivery-log.dto';

export interface DeliveryLogRow {
  id: string;
  eventId: string;
  /** Null once the event's outbox row is gone. */
  eventType: string | null;
  status: DeliveryStatus;
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date;
  lastAttemptAt: Date | null;
  completedAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
}

export interface AttemptLogRow {
  number: number;
  at: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

const DELIVERY_COLUMNS = `x.id, x.event_id AS "eventId", ${eventTypeSql('o')} AS "eventType", x.status, x.attempts, x.created_at AS "createdAt",
  ${readyAtSql('x')} AS "nextAttemptAt", x.last_attempt_at AS "lastAttemptAt", x.completed_at AS "completedAt",
  x.last_status AS "lastStatus", x.last_error AS "lastError"`;

/** The delivery log of an endpoint (docs/webhooks.md): its deliveries and their attempts. */
@Injectable()
export class DeliveryLogRepository {
  /**
   * Keyset page in (createdAt, id) descending order. Each status is its own run of
   * webhook_deliveries_endpoint_log, read only as far as the page needs; the runs are then merged. Pending
   * deliveries also include those not yet taken up: the events after the endpoint's position that
   * it receives and that have no row yet (untakenSql), listed as the row their first result will
   * write is (same id and creation; no attempt yet).
   */
  list(m: EntityManager, endpointId: string, statuses: readonly DeliveryStatus[], after: Keyset | undefined, limit: number): Promise<DeliveryLogRow[]> {
    const params: unknown[] = [endpointId, limit + 1];
    if (after) params.push(after.at, after.id);
    const runs = statuses.map((status) => {
      params.push(status);
      return `(SELECT * FROM webhook_deliveries x
               WHERE x.endpoint_id = $1 AND x.status = $${params.length}
                 ${after ? 'AND (x.created_at, x.id) < ($3::timestamptz, $4::uuid)' : ''}
               ORDER BY x.created_at DESC, x.id DESC LIMIT $2)`;
    });
    if (statuses.includes('pending')) {
      runs.push(`(SELECT * FROM (${untakenSql('p.endpoint_id = $1')}) x
                  ${after ? 'WHERE (x.created_at, x.id) < ($3::timestamptz, $4::uuid)' : ''}
                  ORDER BY x.created_at DESC, x.id DESC LIMIT $2)`);
    }
    return sqlRows<DeliveryLogRow>(
      m,
      `SELECT ${DELIVERY_COLUMNS} FROM (${runs.join(' UNION ALL ')}) x
       LEFT JOIN journal o ON o.id = ${eventKeySql('x.event_id')}
       ORDER BY x.created_at DESC, x.id DESC LIMIT $2`,
      params,
    );
  }

  /**
   * One delivery of the endpoint, when the endpoint belongs to the game: its row, or one not yet
   * taken up (which has none, so the two never both answer). A derived id's first 48 bits are its
   * event's time (svc_delivery_id), so the latter is looked for only among the events of that
   * millisecond.
   */
  async find(m: EntityManager, gameId: string, endpointId: string, deliveryId: string): Promise<DeliveryLogRow | null> {
    const ms = (bound: string) => `(left(replace($1::text, '-', ''), 12) || '${bound}')::uuid`;
    const [row] = await sqlRows<DeliveryLogRow>(
      m,
      `SELECT ${DELIVERY_COLUMNS} FROM (
         SELECT x.* FROM webhook_deliveries x WHERE x.id = $1 AND x.endpoint_id = $2
         UNION ALL
         SELECT * FROM (${untakenSql(`p.endpoint_id = $2`, `o.id BETWEEN ${ms('00000000000000000000')} AND ${ms('ffffffffffffffffffff')}`)}) u
         WHERE u.id = $1
       ) x
       JOIN webhook_endpoints w ON w.id = x.endpoint_id
       LEFT JOIN journal o ON o.id = ${eventKeySql('x.event_id')}
       WHERE w.game_id = $3
       LIMIT 1`,
      [deliveryId, endpointId, gameId],
    );
    return row ?? null;
  }

  attempts(m: EntityManager, deliveryId: string): Promise<AttemptLogRow[]> {
    return sqlRows<AttemptLogRow>(
      m,
      `SELECT number, attempted_at AS at, status_code AS "statusCode", error, duration_ms AS "durationMs"
       FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY number`,
      [deliveryId],
    );
  }
}
