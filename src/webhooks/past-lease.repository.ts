import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { eventIdSql } from '../db/journal-sql';
import { horizonRows } from '../db/sql';
import { HORIZON } from '../events/feed.repository';
import { WORKER_BATCH, type ClaimRoom } from './delivery-window';
import { afterPositionSql, BUDGETED_SQL, candidatesSql, sendableSql } from './position-sql';
import { POSITION_SCAN } from './positions.repository';
import type { ClaimedDelivery } from './webhook-rows';
import { CLAIM_LEASE_SECONDS, CLAIMED_DELIVERIES_SQL } from './webhooks.repository';

/**
 * How old the first event after a leased position must be before other workers help with the
 * events past its batch. A worker keeping up with its endpoint leaves none waiting that long (its
 * batch's events are as old as one round of sends); a slow receiver, a burst or a worker that
 * died with the lease do.
 */
export const HELP_AFTER_MS = 1_000;

/**
 * Claims past another worker's lease (docs/design/write-path.md, step 6): a position's lease lets
 * one batch of an endpoint be in flight at a time, fleet-wide, so a slow receiver capped every
 * endpoint at one window's sends per round trip, however many instances ran, and a worker that
 * died with the lease held all of its endpoint's events for the lease's 25 s. Here the other
 * workers help once the position's first event has waited HELP_AFTER_MS: they take the events
 * after the first WORKER_BATCH the position would send (its batch, which is never larger, is among
 * them: a batch is the first events without a row after the position, and its events have none
 * until their results are written), writing each a row that is pending, leased and at its first
 * attempt, as claimDue would have claimed it. From then on they are rows: their results are
 * written as rows' are, a lost one is claimed again by claimDue once its lease runs out, and the
 * position passes over them. The position's row is locked for share while the events are counted,
 * so its lease holder cannot move it or take a new batch meanwhile (its claim skips it, its move
 * waits for these milliseconds); a second helper reading the same events writes no row of its own
 * (ON CONFLICT), so nothing is sent twice. Endpoints whose lease this worker holds (`holding`) are
 * left to it: it sends their next batch once this one is written.
 *
 * Planned on every call, like claimDue; the worker runs it only when its position claim saw
 * another worker's lease and left room in the window.
 */
@Injectable()
export class PastLeaseRepository {
  claim(ds: DataSource, room: ClaimRoom, holding: string[], retentionDays: number): Promise<ClaimedDelivery[]> {
    return horizonRows<ClaimedDelivery>(
      ds,
      `WITH flying AS (
         SELECT f.endpoint_id, f.n FROM unnest($1::uuid[], $2::int[]) AS f(endpoint_id, n)
       ), h AS MATERIALIZED (
         SELECT s.era, ${HORIZON} AS horizon FROM feed_state s
       ), ${candidatesSql(`p.lease_until > now() AND p.endpoint_id <> ALL ($6::uuid[])
           AND (SELECT o.created_at FROM journal o
                WHERE o.game_id = w.game_id AND o.type IS NOT NULL
                  AND (o.era, o.xid, o.seq) > (p.era, p.xid, p.seq) AND (o.era, o.xid) < (h.era, h.horizon)
                ORDER BY o.era, o.xid, o.seq LIMIT 1) < now() - make_interval(secs => $7::float8 / 1000)`)}, ${BUDGETED_SQL}, locked AS (
         SELECT p.endpoint_id, p.era, p.xid, p.seq, b.k, w.game_id
         FROM webhook_positions p
         JOIN budgeted b ON b.endpoint_id = p.endpoint_id
         JOIN webhook_endpoints w ON w.id = p.endpoint_id
         WHERE b.k > 0 AND p.lease_until > now() AND w.disabled_at IS NULL
         FOR SHARE OF p SKIP LOCKED
       ), scanned AS (
         SELECT l.endpoint_id, l.k, o.id, o.era, o.xid, o.seq, o.created_at,
                ${sendableSql('l.endpoint_id', 'o', '$8')} AS sendable
         FROM locked l CROSS JOIN h
         CROSS JOIN ${afterPositionSql('l', '$9')}
       ), counted AS (
         SELECT s.*, count(*) FILTER (WHERE s.sendable) OVER (PARTITION BY s.endpoint_id ORDER BY s.era, s.xid, s.seq) AS upto
         FROM scanned s
       ), claimed AS (
         INSERT INTO webhook_deliveries AS d (id, endpoint_id, event_id, status, attempts, next_attempt_at, last_attempt_at, created_at, lease_until)
         SELECT svc_delivery_id(c.endpoint_id, ${eventIdSql('c')}), c.endpoint_id, ${eventIdSql('c')}, 'pending', 1, c.created_at, now(), c.created_at,
                now() + make_interval(secs => ${CLAIM_LEASE_SECONDS})
         FROM counted c WHERE c.sendable AND c.upto > $10 AND c.upto <= $10 + c.k
         ON CONFLICT (id) DO NOTHING
         RETURNING d.id, d.endpoint_id, d.event_id, d.attempts
       )
       ${CLAIMED_DELIVERIES_SQL}
       ORDER BY c.event_id`,
      [room.endpointIds, room.inFlight, room.share, room.fairFree, room.borrowFree, holding, HELP_AFTER_MS, retentionDays, POSITION_SCAN, WORKER_BATCH],
      true,
    );
  }
}
