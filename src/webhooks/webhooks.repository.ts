import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { uuidv7 } from '../common/ids';
import { sqlRows } from '../db/sql';
import type { WebhookFormat } from './payload-formats';
import { ENDPOINT_COLUMNS, type ClaimedDelivery, type EndpointRow } from './webhook-rows';

export interface EndpointChanges {
  url?: string;
  events?: string[];
  format?: WebhookFormat;
  disabled?: boolean;
}

/** How long a claimed attempt is reserved for its worker: longer than the 10 s send timeout. */
const CLAIM_LEASE_SECONDS = 120;

@Injectable()
export class WebhooksRepository {
  async insert(m: EntityManager, e: { gameId: string; url: string; events: string[]; format: WebhookFormat; secret: string }): Promise<EndpointRow> {
    const [row] = await sqlRows<EndpointRow>(
      m,
      `INSERT INTO webhook_endpoints AS w (id, game_id, url, events, format, secret) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING ${ENDPOINT_COLUMNS}`,
      [uuidv7(), e.gameId, e.url, e.events, e.format, e.secret],
    );
    return row;
  }

  async find(m: EntityManager, gameId: string, id: string, lock = false): Promise<EndpointRow | null> {
    const [row] = await sqlRows<EndpointRow>(
      m,
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints w WHERE w.id = $1 AND w.game_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [id, gameId],
    );
    return row ?? null;
  }

  /** Keyset page in (createdAt, id) descending order, on webhook_endpoints_game_order. */
  list(m: EntityManager, gameId: string, after: { at: string; id: string } | undefined, limit: number): Promise<EndpointRow[]> {
    return sqlRows<EndpointRow>(
      m,
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints w
       WHERE w.game_id = $1 ${after ? 'AND (w.created_at, w.id) < ($3::timestamptz, $4::uuid)' : ''}
       ORDER BY w.created_at DESC, w.id DESC LIMIT $2`,
      after ? [gameId, limit + 1, after.at, after.id] : [gameId, limit + 1],
    );
  }

  async update(m: EntityManager, id: string, c: EndpointChanges): Promise<EndpointRow> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    const set = (sql: string, value: unknown) => {
      params.push(value);
      sets.push(sql.replace('?', `$${params.length}`));
    };
    if (c.url !== undefined) set('url = ?', c.url);
    if (c.events !== undefined) set('events = ?', c.events);
    if (c.format !== undefined) set('format = ?', c.format);
    // Re-enabling starts the count of consecutive failures afresh.
    if (c.disabled === true) sets.push('disabled_at = now()');
    if (c.disabled === false) sets.push('disabled_at = NULL', 'consecutive_failures = 0');
    const [row] = await sqlRows<EndpointRow>(m, `UPDATE webhook_endpoints w SET ${sets.join(', ')} WHERE w.id = $1 RETURNING ${ENDPOINT_COLUMNS}`, params);
    return row;
  }

  /** Removes the endpoint and, by cascade, its deliveries. */
  async delete(m: EntityManager, id: string): Promise<void> {
    await m.query('DELETE FROM webhook_deliveries WHERE endpoint_id = $1', [id]);
    await m.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
  }

  /**
   * Claims due attempts for this worker: rows locked by another worker are skipped, and a claimed
   * row's next attempt moves past the lease, so every attempt is sent by exactly one instance.
   * At most `perEndpoint` per endpoint and none for `busyEndpoints`, so one slow receiver cannot
   * fill the window. Deliveries of
   * disabled endpoints wait (they are muted, not dropped).
   */
  claimDue(m: EntityManager, limit: number, perEndpoint: number, busyEndpoints: string[] = []): Promise<ClaimedDelivery[]> {
    return sqlRows<ClaimedDelivery>(
      m,
      `WITH due AS (
         SELECT d.id FROM webhook_deliveries d
         WHERE d.id IN (
           SELECT p.id FROM webhook_endpoints w
           CROSS JOIN LATERAL (
             SELECT x.id, x.next_attempt_at FROM webhook_deliveries x
             WHERE x.endpoint_id = w.id AND x.status = 'pending' AND x.next_attempt_at <= now()
             ORDER BY x.next_attempt_at LIMIT $2
           ) p
           WHERE w.disabled_at IS NULL AND w.id <> ALL ($3::uuid[])
           ORDER BY p.next_attempt_at LIMIT $1 * 2
         )
         AND d.status = 'pending' AND d.next_attempt_at <= now()
         ORDER BY d.next_attempt_at
         LIMIT $1
         FOR UPDATE OF d SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d
         SET attempts = d.attempts + 1, last_attempt_at = now(),
             next_attempt_at = now() + make_interval(secs => ${CLAIM_LEASE_SECONDS})
         FROM due WHERE d.id = due.id
         RETURNING d.id, d.endpoint_id, d.event_id, d.attempts
       )
       SELECT c.id, c.endpoint_id AS "endpointId", c.attempts, w.url, w.format, w.secret, o.body AS event
       FROM claimed c
       JOIN webhook_endpoints w ON w.id = c.endpoint_id
       LEFT JOIN outbox_events o ON o.id = c.event_id`,
      [limit, perEndpoint, busyEndpoints],
    );
  }

  async markDelivered(m: EntityManager, d: { id: string; endpointId: string; status: number }): Promise<void> {
    await m.query(
      `WITH d AS (
         UPDATE webhook_deliveries SET status = 'delivered', last_status = $2, last_error = NULL, completed_at = now()
         WHERE id = $1 RETURNING endpoint_id
       )
       UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = $3 AND consecutive_failures <> 0`,
      [d.id, d.status, d.endpointId],
    );
  }

  /**
   * Records a failed attempt: a retry after `retryInMs`, or terminal when null. The endpoint's run
   * of failures grows, and at `disableAfter` the endpoint is disabled.
   */
  async markFailed(
    m: EntityManager,
    d: { id: string; endpointId: string; status: number | null; error: string; retryInMs: number | null },
    disableAfter: number,
  ): Promise<void> {
    await m.query(
      `WITH d AS (
         UPDATE webhook_deliveries SET
           status = CASE WHEN $4::int IS NULL THEN 'failed' ELSE 'pending' END,
           next_attempt_at = CASE WHEN $4::int IS NULL THEN next_attempt_at ELSE now() + make_interval(secs => $4::int / 1000.0) END,
           completed_at = CASE WHEN $4::int IS NULL THEN now() END,
           last_status = $2, last_error = $3
         WHERE id = $1 RETURNING endpoint_id
       )
       UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1,
         disabled_at = CASE WHEN consecutive_failures + 1 >= $6 AND disabled_at IS NULL THEN now() ELSE disabled_at END
       WHERE id = $5`,
      [d.id, d.status, d.error.slice(0, 500), d.retryInMs, d.endpointId, disableAfter],
    );
  }
}
