import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { uuidv7 } from '../common/ids';
import { eventBodySql, eventKeySql } from '../db/journal-sql';
import { genericPlanRows, sqlRows } from '../db/sql';
import { AUTO_DISABLE_AFTER } from './backoff';
import type { WebhookFormat } from './payload-formats';
import type { ClaimRoom } from './delivery-window';
import { untakenSql } from './position-sql';
import { ENDPOINT_COLUMNS, type AttemptRecord, type ClaimedDelivery, type EndpointRow, type PositionBatch } from './webhook-rows';

export interface EndpointChanges {
  url?: string;
  events?: string[];
  format?: WebhookFormat;
  disabled?: boolean;
}

/**
 * How long a claimed attempt is reserved for its worker. A live worker is done with it within the
 * 10 s send timeout plus one batched result write; a worker that died with it loses it when the
 * lease runs out, and another instance's next claim (every 5 s at the latest) takes it over: an
 * attempt lost with its process is made again within 30 s.
 */
export const CLAIM_LEASE_SECONDS = 25;

/**
 * When a pending delivery may next be attempted: its next attempt's time, or past it while a
 * claim's lease runs. Claims write the lease to lease_until alone (an update of no indexed column,
 * so it stays on its page: HOT); release 1.1.0, which may run beside this one, also moves
 * next_attempt_at to the lease's end. This reads either.
 */
export const readyAtSql = (x: string): string => `greatest(${x}.next_attempt_at, ${x}.lease_until)`;

/**
 * The claimed rows of a CTE `claimed` (id, endpoint_id, event_id, attempts) as ClaimedDelivery,
 * with their endpoints' sending details and their events.
 */
export const CLAIMED_DELIVERIES_SQL = `SELECT c.id, c.endpoint_id AS "endpointId", c.attempts, w.url, w.format, w.secret,
              CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS "previousSecret", ${eventBodySql('o')} AS event,
              o.trace_context AS "traceContext"
       FROM claimed c
       JOIN webhook_endpoints w ON w.id = c.endpoint_id
       LEFT JOIN journal o ON o.id = ${eventKeySql('c.event_id')}`;

/** No claim's lease runs on the delivery at the claim's now() (see claimDue for the precision). */
const notLeased = (x: string): string => `(${x}.lease_until IS NULL OR ${x}.lease_until <= now()::timestamptz(3))`;

/**
 * The webhook backlog for the metrics, in one statement on the pending-deliveries index: pending
 * deliveries due now, waiting for a later attempt (a retry's backoff, or in flight under a claim's
 * lease), or muted (their endpoint is disabled); how long the oldest due one has waited past its
 * due time; and the disabled endpoints, by why. The deliveries not yet taken up from the endpoints'
 * positions (untakenSql) are due, or muted, from their event's creation. An endpoint disabled by
 * its failures keeps their count until it is re-enabled (recordResults), and one an operator
 * disabled cannot have reached that many without being disabled by them first.
 * docs/observability.md gives the same figures in SQL.
 */
export const WEBHOOK_BACKLOG_SQL = `WITH rows AS (
    SELECT w.disabled_at IS NOT NULL AS muted, ${readyAtSql('d')} AS ready FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
    WHERE d.status = 'pending'
    UNION ALL
    SELECT w.disabled_at IS NOT NULL, u.next_attempt_at FROM (${untakenSql('true')}) u
    JOIN webhook_endpoints w ON w.id = u.endpoint_id
  )
  SELECT
    count(*) FILTER (WHERE NOT muted AND ready <= now())::int AS due,
    count(*) FILTER (WHERE NOT muted AND ready > now())::int AS waiting,
    count(*) FILTER (WHERE muted)::int AS muted,
    coalesce(extract(epoch FROM now() - min(ready) FILTER (WHERE NOT muted AND ready <= now())), 0)::float8 AS oldest,
    (SELECT count(*) FROM webhook_endpoints WHERE disabled_at IS NOT NULL AND consecutive_failures >= ${AUTO_DISABLE_AFTER})::int AS "disabledByFailures",
    (SELECT count(*) FROM webhook_endpoints WHERE disabled_at IS NOT NULL AND consecutive_failures < ${AUTO_DISABLE_AFTER})::int AS "disabledByOperator"
  FROM rows`;

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

  /**
   * Makes `secret` the signing secret. With a grace period the replaced one goes on signing beside
   * it until then (one rotated earlier and still in its grace period is dropped); without, it goes.
   */
  async rotateSecret(m: EntityManager, id: string, secret: string, graceSeconds: number): Promise<EndpointRow> {
    const [row] = await sqlRows<EndpointRow>(
      m,
      `UPDATE webhook_endpoints w SET
         previous_secret = CASE WHEN $3::int > 0 THEN w.secret END,
         previous_secret_expires_at = CASE WHEN $3::int > 0 THEN now() + make_interval(secs => $3::int) END,
         secret = $2
       WHERE w.id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
      [id, secret, graceSeconds],
    );
    return row;
  }

  /** Removes the endpoint and, by cascade, its deliveries. */
  async delete(m: EntityManager, id: string): Promise<void> {
    await m.query('DELETE FROM webhook_deliveries WHERE endpoint_id = $1', [id]);
    await m.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
  }

  /** Whether any game has an endpoint that is not disabled: without one, no claim can find work. */
  async anyEndpointEnabled(m: EntityManager): Promise<boolean> {
    const [row] = await sqlRows<{ enabled: boolean }>(m, 'SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE disabled_at IS NULL) AS enabled');
    return row.enabled;
  }

  /**
   * Claims due attempts for this worker: rows locked by another worker are skipped, and a claimed
   * row is leased in lease_until, so every attempt is sent by exactly one instance. The claim
   * changes no indexed column: a leased row keeps its place in webhook_deliveries_due and is
   * passed over until the lease ends (at most an endpoint's window of such rows), and the update
   * adds no index entry. Release 1.0.0 read only next_attempt_at and would send a leased row again,
   * so it may not run beside this release (LeaseUntilAlone1767100000000).
   * Each endpoint gets at most its share less what it has in flight (together at most `fairFree`);
   * when only one endpoint has due work it may instead fill the window's free slots (`borrowFree`).
   * Deliveries of disabled endpoints wait (they are muted, not dropped).
   *
   * Due means due by now() at the column's precision: next_attempt_at keeps whole milliseconds and
   * rounds, so a row made due "now" (enqueued, or set to now()) may hold a time up to 0.5 ms past
   * that now(). Compared with now() itself, a claim starting within that half millisecond would
   * skip it, and the attempt would wait for the next tick.
   *
   * A prepared statement on its generic plan, made without sequential scans (genericPlanRows): planned
   * on every call it cost 1.0 ms to run in 0.07 under the bench's hot joins, where the worker claims
   * about once every ten requests. Left to PostgreSQL's `auto`, the generic plan made while
   * webhook_deliveries was young scanned the whole table once it had grown (6 to 25 ms a call within
   * minutes of load). Every read of the table goes by an endpoint's due rows or by keys.
   */
  claimDue(m: EntityManager, room: ClaimRoom): Promise<ClaimedDelivery[]> {
    return genericPlanRows<ClaimedDelivery>(
      m,
      `WITH flying AS (
         SELECT f.endpoint_id, f.n FROM unnest($1::uuid[], $2::int[]) AS f(endpoint_id, n)
       ), due AS (
         SELECT w.id, coalesce(f.n, 0) AS n, count(*) OVER () AS endpoints
         FROM webhook_endpoints w
         CROSS JOIN LATERAL (
           SELECT 1 FROM webhook_deliveries x
           WHERE x.endpoint_id = w.id AND x.status = 'pending' AND x.next_attempt_at <= now()::timestamptz(3) AND ${notLeased('x')}
           ORDER BY x.next_attempt_at LIMIT 1
         ) first_due
         LEFT JOIN flying f ON f.endpoint_id = w.id
         WHERE w.disabled_at IS NULL
       ), allowance AS (
         SELECT id, endpoints, greatest(least($3 - n, $4), CASE WHEN endpoints = 1 THEN $5 ELSE 0 END) AS k FROM due
       ), budget AS (
         SELECT least(coalesce(sum(k), 0), CASE WHEN max(endpoints) = 1 THEN greatest($4, $5) ELSE $4 END) AS n FROM allowance
       ), due_rows AS (
         SELECT p.id, p.next_attempt_at FROM allowance a
         CROSS JOIN LATERAL (
           SELECT x.id, x.next_attempt_at FROM webhook_deliveries x
           WHERE x.endpoint_id = a.id AND x.status = 'pending' AND x.next_attempt_at <= now()::timestamptz(3) AND ${notLeased('x')}
           ORDER BY x.next_attempt_at LIMIT greatest(a.k, 0)
         ) p
         ORDER BY p.next_attempt_at LIMIT (SELECT n * 2 FROM budget)
       ), locked AS (
         SELECT d.id FROM webhook_deliveries d
         -- Not finished, rather than pending, as in recordResults: the rows are found by their keys alone.
         WHERE d.id = ANY (ARRAY(SELECT id FROM due_rows)) AND d.status NOT IN ('delivered', 'failed') AND d.next_attempt_at <= now()::timestamptz(3) AND ${notLeased('d')}
         ORDER BY d.next_attempt_at
         LIMIT (SELECT n FROM budget)
         FOR UPDATE OF d SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d
         SET attempts = d.attempts + 1, last_attempt_at = now(),
             lease_until = now() + make_interval(secs => ${CLAIM_LEASE_SECONDS})
         -- By the keys locked, not a join: the generic plan made while the table was empty read its
         -- whole primary key and looked each row up among those locked (9 ms a claim once it held 9,000).
         WHERE d.id = ANY (ARRAY(SELECT id FROM locked))
         RETURNING d.id, d.endpoint_id, d.event_id, d.attempts
       )
       ${CLAIMED_DELIVERIES_SQL}`,
      [room.endpointIds, room.inFlight, room.share, room.fairFree, room.borrowFree],
    );
  }

  /**
   * Records finished attempts, in the order they finished, in one statement: each claimed row
   * becomes delivered, pending again (`retryInMs` later, its lease over) or failed, and its attempt
   * joins the delivery log (stamped with the claim's time, the row's last_attempt_at). A result
   * applies only to the attempt it belongs to (a row claimed again after its lease ran out is left
   * to its new claimant). A first attempt taken up from a position (`fresh`) writes its row now,
   * already in the state its result gives it, dated as its event (the delivery log's order does not
   * change when the row appears), unless a row with its id exists (then it was sent twice, and is
   * logged once). The positions whose batches are all recorded move in the same statement
   * (`moves`), each only if its lease is still the one that batch took and only forward. Each
   * endpoint's run of consecutive failures restarts at its last success in the batch and grows by
   * the failures after it; at `disableAfter` the endpoint is disabled. Once disabled, a success
   * still in flight leaves the count alone: it is how the metrics tell an endpoint disabled by its
   * failures from one an operator disabled, until it is re-enabled. A prepared statement on its
   * generic plan (genericPlanRows): every table is reached by its key from the arrays, and planned
   * on each call it cost more than it ran (0.47 ms against 0.41 under the bench's hot joins).
   */
  async recordResults(m: EntityManager, results: AttemptRecord[], disableAfter: number, moves: readonly PositionBatch[] = []): Promise<void> {
    await genericPlanRows(
      m,
      `WITH r AS (
         SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::text[], $6::int[], $7::int[],
                              $9::uuid[], $10::text[], $11::timestamptz[], $12::timestamptz[]) WITH ORDINALITY
           AS r(id, attempts, outcome, status, error, retry_ms, duration_ms, endpoint_id, event_id, created_at, claimed_at, seq)
       ), d AS (
         UPDATE webhook_deliveries x SET
           status = CASE r.outcome WHEN 'retry' THEN 'pending' ELSE r.outcome END,
           next_attempt_at = CASE WHEN r.outcome = 'retry' THEN now() + make_interval(secs => r.retry_ms / 1000.0) ELSE x.next_attempt_at END,
           lease_until = NULL,
           completed_at = CASE WHEN r.outcome <> 'retry' THEN now() END,
           last_status = r.status, last_error = r.error
         -- Not finished, rather than pending: the index of pending rows is then no path (its predicate
         -- does not follow), and the generic plan made while few rows were pending cannot read it whole.
         -- The keys as an array as well as the join: the generic plan made while the table was empty
         -- read its whole primary key and looked each row up among the results.
         FROM r WHERE x.id = ANY ($1::uuid[]) AND r.endpoint_id IS NULL AND x.id = r.id AND x.attempts = r.attempts AND x.status NOT IN ('delivered', 'failed')
         RETURNING x.id, x.endpoint_id, x.last_attempt_at, r.attempts, r.status, r.error, r.duration_ms, r.seq, r.outcome = 'delivered' AS ok
       ), f AS (
         INSERT INTO webhook_deliveries (id, endpoint_id, event_id, status, attempts, next_attempt_at, last_attempt_at, last_status, last_error, created_at, completed_at)
         SELECT r.id, r.endpoint_id, r.event_id, CASE r.outcome WHEN 'retry' THEN 'pending' ELSE r.outcome END, 1,
                CASE WHEN r.outcome = 'retry' THEN now() + make_interval(secs => r.retry_ms / 1000.0) ELSE r.created_at END,
                r.claimed_at, r.status, r.error, r.created_at, CASE WHEN r.outcome <> 'retry' THEN now() END
         FROM r WHERE r.endpoint_id IS NOT NULL
         ON CONFLICT (id) DO NOTHING
         RETURNING id
       ), done AS (
         SELECT * FROM d
         UNION ALL
         SELECT r.id, r.endpoint_id, r.claimed_at, 1, r.status, r.error, r.duration_ms, r.seq, r.outcome = 'delivered' FROM f JOIN r ON r.id = f.id
       ), logged AS (
         -- A retried attempt's row stays pending at the same number: a result written twice is logged once.
         INSERT INTO webhook_delivery_attempts (delivery_id, number, attempted_at, status_code, error, duration_ms)
         SELECT id, attempts, last_attempt_at, status, error, duration_ms FROM done
         ON CONFLICT DO NOTHING
       ), moved AS (
         UPDATE webhook_positions p SET era = mv.era, xid = mv.xid::xid8, seq = mv.seq, lease_until = NULL
         FROM unnest($13::uuid[], $14::timestamptz[], $15::int[], $16::text[], $17::bigint[]) AS mv(endpoint_id, lease, era, xid, seq)
         WHERE p.endpoint_id = mv.endpoint_id AND p.lease_until = mv.lease AND (p.era, p.xid, p.seq) < (mv.era, mv.xid::xid8, mv.seq)
       ), runs AS (
         SELECT endpoint_id, max(seq) FILTER (WHERE ok) AS last_ok FROM done GROUP BY endpoint_id
       ), tally AS (
         SELECT done.endpoint_id, runs.last_ok IS NOT NULL AS reset,
                count(*) FILTER (WHERE NOT done.ok AND done.seq > coalesce(runs.last_ok, 0))::int AS failures
         FROM done JOIN runs USING (endpoint_id) GROUP BY done.endpoint_id, runs.last_ok
       )
       UPDATE webhook_endpoints w SET
         consecutive_failures = CASE WHEN t.reset AND w.disabled_at IS NULL THEN 0 ELSE w.consecutive_failures END + t.failures,
         disabled_at = CASE
           WHEN w.disabled_at IS NULL AND CASE WHEN t.reset THEN 0 ELSE w.consecutive_failures END + t.failures >= $8 THEN now()
           ELSE w.disabled_at END
       FROM tally t WHERE w.id = t.endpoint_id AND (t.failures > 0 OR w.consecutive_failures <> 0)`,
      [
        results.map((r) => r.id),
        results.map((r) => r.attempts),
        results.map((r) => r.outcome),
        results.map((r) => r.status),
        results.map((r) => (r.error === null ? null : r.error.slice(0, 500))),
        results.map((r) => r.retryInMs),
        results.map((r) => r.durationMs),
        disableAfter,
        results.map((r) => r.fresh?.endpointId ?? null),
        results.map((r) => r.fresh?.eventId ?? null),
        results.map((r) => r.fresh?.createdAt ?? null),
        results.map((r) => r.fresh?.claimedAt ?? null),
        moves.map((b) => b.endpointId),
        moves.map((b) => b.lease),
        moves.map((b) => b.era),
        moves.map((b) => b.xid),
        moves.map((b) => b.seq),
      ],
    );
  }
}
