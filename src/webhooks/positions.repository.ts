import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { eventBodySql, eventIdSql } from '../db/journal-sql';
import { horizonRows } from '../db/sql';
import { HORIZON } from '../events/feed.repository';
import type { ClaimRoom } from './delivery-window';
import type { ClaimedDelivery, PositionBatch } from './webhook-rows';
import { CLAIM_LEASE_SECONDS } from './webhooks.repository';
import { afterPositionSql, BUDGETED_SQL, candidatesSql, feedHoldsSql, sendableSql } from './position-sql';

/**
 * How many events after a position one claim reads at most, those it passes over included: enough
 * that passing over a second of a busy game's events takes a claim or two (each is planned, about
 * 3 ms), few enough that a claim holds its position's lock for milliseconds.
 */
export const POSITION_SCAN = 500;
/**
 * An endpoint that may send `k` reads `SEND_SCAN_FACTOR * k + SEND_SCAN_EXTRA` events at most: each
 * event read costs two index probes (its row, its rules), and where most events are sent, reading
 * POSITION_SCAN to send a window's 50 cost a claim 14-67 ms under the bench's join load. An endpoint
 * that lets few of them through takes more claims to pass over the rest, each after its batch.
 */
const SEND_SCAN_FACTOR = 2;
const SEND_SCAN_EXTRA = 16;

/**
 * A row per event to send, as a claimed delivery (`send`); one for an endpoint that only passed over
 * a full read (`full`); one when events wait above the horizon (`held`).
 */
type ClaimRow = Omit<ClaimedDelivery, 'id' | 'attempts' | 'fresh'> & {
  kind: 'send' | 'full' | 'held' | 'leased';
  id: string | null;
  eventId: string;
  createdAt: string;
  claimedAt: string;
  lease: string;
  era: number;
  xid: string;
  seq: string;
  taken: number;
};

export interface PositionClaim {
  deliveries: ClaimedDelivery[];
  /** A position passed over as many events as a claim reads: there may be more. */
  more: boolean;
  /** Committed events wait above the horizon. */
  held: boolean;
  /** Another worker's lease holds a position of an enabled endpoint (PastLeaseRepository may help). */
  leased: boolean;
}

/**
 * The endpoints' positions in their games' feeds (docs/design/write-path.md, step 6, release B):
 * the events after an endpoint's position are its deliveries not yet taken up.
 */
@Injectable()
export class PositionsRepository {
  /**
   * Takes up, for this worker, the events after the positions of enabled endpoints: as claimDue
   * for rows, each endpoint at most its share less what it has in flight, the one endpoint with
   * work the window's free slots, the endpoints furthest behind first. Only events below the
   * feed's horizon are read, so none can still appear before a position once it has passed them;
   * those the endpoint's rules at their place do not let through, those past retention and those
   * with a delivery row (written by 1.8.0's commits, or by a first result whose batch lost its
   * lease) are passed over: an event's row is looked for first, its rules only when it has none
   * (the AND of the select list is evaluated in order, stopping at the first false). A position
   * with events to send is leased, as a claimed row is, until the worker has recorded their results
   * and moves it to the batch's end (recordResults); one with only events to pass over is moved at
   * once. `more` says that a position passed over as many as a claim reads (there may be more: the
   * worker claims again rather than wait for a wake); `held`, that committed events of an enabled
   * endpoint's game wait above the horizon, behind a transaction still open, which may end without
   * a commit that announces them. Positions another worker holds, by its lock or its lease, are
   * skipped; `leased`, that a lease other than those of `holding` (the endpoints whose positions
   * this worker's batches lease) holds one (PastLeaseRepository). A prepared statement on its
   * generic plan (horizonRows): planning it cost as much as running it (10-20 ms a call under the
   * bench's join load), and its parameters (the window's figures) pick no index; what it reads comes
   * from the positions' rows. Left to `auto`, PostgreSQL planned it anew on its first five calls on
   * each connection (3-9 ms each under the bench's join load).
   */
  async claim(ds: DataSource, room: ClaimRoom, retentionDays: number, holding: string[] = []): Promise<PositionClaim> {
    const rows = await horizonRows<ClaimRow>(
      ds,
      `WITH flying AS (
         SELECT f.endpoint_id, f.n FROM unnest($1::uuid[], $2::int[]) AS f(endpoint_id, n)
       ), h AS MATERIALIZED (
         SELECT s.era, ${HORIZON} AS horizon FROM feed_state s
       ), held AS MATERIALIZED (
         -- Every position is below the horizon: an event at or above it is after the position. Bounded
         -- by the position as well, the index read would start there, however far behind it is.
         SELECT 1 FROM webhook_endpoints w CROSS JOIN h
         WHERE w.disabled_at IS NULL
           AND ${feedHoldsSql('w.game_id', '(o.era, o.xid) >= (h.era, h.horizon)')}
         LIMIT 1
       ), leased AS MATERIALIZED (
         SELECT 1 FROM webhook_positions p JOIN webhook_endpoints w ON w.id = p.endpoint_id
         WHERE w.disabled_at IS NULL AND p.lease_until > now() AND p.endpoint_id <> ALL ($10::uuid[])
         LIMIT 1
       ), ${candidatesSql(`(p.lease_until IS NULL OR p.lease_until <= now())
           AND ${feedHoldsSql('w.game_id', '(o.era, o.xid, o.seq) > (p.era, p.xid, p.seq) AND (o.era, o.xid) < (h.era, h.horizon)')}`)}, ${BUDGETED_SQL}, locked AS (
         SELECT p.endpoint_id, p.era, p.xid, p.seq, b.k, w.game_id,
                CASE WHEN b.k > 0 THEN least($7, $8 * b.k + $9) ELSE $7 END AS scan
         FROM webhook_positions p
         JOIN budgeted b ON b.endpoint_id = p.endpoint_id
         JOIN webhook_endpoints w ON w.id = p.endpoint_id
         WHERE (p.lease_until IS NULL OR p.lease_until <= now()) AND w.disabled_at IS NULL
         FOR UPDATE OF p SKIP LOCKED
       ), scanned AS (
         SELECT l.endpoint_id, l.k, l.scan, o.id, o.era, o.xid, o.seq, count(*) OVER (PARTITION BY l.endpoint_id) AS read,
                ${sendableSql('l.endpoint_id', 'o', '$6')} AS sendable
         FROM locked l CROSS JOIN h
         CROSS JOIN ${afterPositionSql('l', 'l.scan')}
       ), counted AS (
         SELECT s.*, count(*) FILTER (WHERE s.sendable) OVER (PARTITION BY s.endpoint_id ORDER BY s.era, s.xid, s.seq) AS upto
         FROM scanned s
       ), batch AS (
         SELECT c.*, (count(*) FILTER (WHERE c.sendable) OVER (PARTITION BY c.endpoint_id))::int AS taken FROM counted c WHERE c.upto <= c.k
       ), ends AS (
         SELECT DISTINCT ON (endpoint_id) endpoint_id, era, xid, seq, read, scan, taken
         FROM batch b ORDER BY endpoint_id, era DESC, xid DESC, seq DESC
       ), moved AS (
         UPDATE webhook_positions p SET
           lease_until = CASE WHEN e.taken > 0 THEN now() + make_interval(secs => ${CLAIM_LEASE_SECONDS}) END,
           era = CASE WHEN e.taken > 0 THEN p.era ELSE e.era END,
           xid = CASE WHEN e.taken > 0 THEN p.xid ELSE e.xid END,
           seq = CASE WHEN e.taken > 0 THEN p.seq ELSE e.seq END
         FROM ends e WHERE p.endpoint_id = e.endpoint_id
         RETURNING p.endpoint_id, p.lease_until
       )
       SELECT CASE WHEN b.id IS NULL THEN 'full' ELSE 'send' END AS kind, svc_delivery_id(w.id, ${eventIdSql('o')})::text AS id, w.id AS "endpointId", w.url, w.format, w.secret,
              CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS "previousSecret",
              ${eventBodySql('o')} AS event, o.trace_context AS "traceContext", ${eventIdSql('o')} AS "eventId",
              o.created_at::text AS "createdAt", now()::timestamptz(3)::text AS "claimedAt", mv.lease_until::text AS lease,
              e.era, e.xid::text AS xid, e.seq::text AS seq, e.taken, row_number() OVER (ORDER BY b.era, b.xid, b.seq) AS ord
       FROM ends e
       JOIN moved mv ON mv.endpoint_id = e.endpoint_id
       LEFT JOIN batch b ON b.endpoint_id = e.endpoint_id AND b.sendable
       LEFT JOIN webhook_endpoints w ON w.id = b.endpoint_id
       LEFT JOIN journal o ON o.id = b.id
       WHERE b.id IS NOT NULL OR (e.taken = 0 AND e.read = e.scan)
       UNION ALL
       SELECT 'held', ${Array(17).fill('NULL').join(', ')} FROM held
       UNION ALL
       SELECT 'leased', ${Array(17).fill('NULL').join(', ')} FROM leased
       ORDER BY ord`,
      [room.endpointIds, room.inFlight, room.share, room.fairFree, room.borrowFree, retentionDays, POSITION_SCAN, SEND_SCAN_FACTOR, SEND_SCAN_EXTRA, holding],
    );
    const batches = new Map<string, PositionBatch>();
    const deliveries = rows.filter((r): r is ClaimRow & { id: string } => r.kind === 'send').map((r): ClaimedDelivery => {
      let batch = batches.get(r.endpointId);
      if (!batch) {
        batch = { endpointId: r.endpointId, lease: r.lease, era: r.era, xid: r.xid, seq: r.seq, size: r.taken, recorded: 0, lost: false };
        batches.set(r.endpointId, batch);
      }
      return {
        id: r.id,
        endpointId: r.endpointId,
        attempts: 1,
        url: r.url,
        format: r.format,
        secret: r.secret,
        previousSecret: r.previousSecret,
        event: r.event,
        traceContext: r.traceContext,
        fresh: { eventId: r.eventId, createdAt: r.createdAt, claimedAt: r.claimedAt, batch },
      };
    });
    return {
      deliveries,
      more: rows.some((r) => r.kind === 'full'),
      held: rows.some((r) => r.kind === 'held'),
      leased: rows.some((r) => r.kind === 'leased'),
    };
  }
}
