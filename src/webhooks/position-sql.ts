import { eventIdSql } from '../db/journal-sql';

// The SQL of deliveries by position (docs/design/write-path.md, step 6, release B), shared by the
// worker's claims, the delivery log and the backlog's figures.

/**
 * Whether the endpoint `endpoint` receives the event `o` by the rules in force at the event's place
 * in the feed: its newest epoch at or before (era, xid). An event of the transaction that changed
 * the rules is under the new ones, as that transaction's own write saw them. Null (no epoch yet)
 * is false: the event came before the endpoint.
 */
export const receivesSql = (endpoint: string, o: string): string => `coalesce((
    SELECT NOT e.disabled AND (cardinality(e.events) = 0 OR ${o}.type = ANY (e.events))
    FROM webhook_endpoint_epochs e WHERE e.endpoint_id = ${endpoint} AND (e.era, e.xid) <= (${o}.era, ${o}.xid)
    ORDER BY e.era DESC, e.xid DESC LIMIT 1), false)`;

/**
 * Whether the event `o` of endpoint `endpoint` has its delivery row (written at a commit, or at its
 * first result). With `probe`, one look-up by key for each event asking, whatever the planner
 * expects: OFFSET 0 keeps it from reading the whole table into a hash instead, which it chose for
 * the claim's generic plan once the table had grown (it cannot know how few events a claim reads),
 * each claim then reading every delivery row (74,000 rows, 15-50 ms a claim, in the bench).
 */
export const hasRowSql = (endpoint: string, o: string, { probe = false } = {}): string =>
  `EXISTS (SELECT 1 FROM webhook_deliveries x WHERE x.id = svc_delivery_id(${endpoint}, ${eventIdSql(o)})${probe ? ' OFFSET 0' : ''})`;

/**
 * Whether the feed holds an event of the game `game` that `bound` keeps (over `o`): one probe of
 * the feed index from the bound, for each row asking. OFFSET 0 keeps it so: as a plain EXISTS the
 * planner may make it a semi join and, when the journal's statistics knew few events (a new
 * database, a burst of writes before autoanalyze), read the whole feed index of every game once,
 * filtering on the game and the bound.
 */
export const feedHoldsSql = (game: string, bound: string): string =>
  `EXISTS (SELECT 1 FROM journal o WHERE o.game_id = ${game} AND o.type IS NOT NULL AND ${bound} OFFSET 0)`;

/** The largest era and xid there are: no bound. */
const NO_ERA = '2147483647';
const NO_XID = `'18446744073709551615'::xid8`;

/**
 * The deliveries of the endpoints `which` picks (over `webhook_positions p`) not yet taken up, as
 * rows of webhook_deliveries: the events after each position that have no row and that the
 * endpoint receives (receivesSql). Not only those below the feed's horizon: an event committed is
 * queued, whether or not the worker may take it up yet. An event past retention is one until the
 * sweep removes its body, as a row past retention is a delivery until the sweep removes it (the
 * worker sends neither). While the endpoint is disabled the read stops at the change that disabled
 * it, whose events and later ones it does not receive: the events queued before it wait. `also`
 * narrows the events read.
 */
export function untakenSql(which: string, also = 'true'): string {
  return `SELECT svc_delivery_id(p.endpoint_id, ${eventIdSql('o')}) AS id, p.endpoint_id, ${eventIdSql('o')}::char(24) AS event_id,
      'pending'::text AS status, 0 AS attempts, o.created_at AS next_attempt_at, NULL::timestamptz(3) AS last_attempt_at,
      NULL::int AS last_status, NULL::text AS last_error, o.created_at, NULL::timestamptz(3) AS completed_at, NULL::timestamptz(3) AS lease_until
    FROM webhook_positions p
    JOIN webhook_endpoints w ON w.id = p.endpoint_id
    LEFT JOIN LATERAL (
      SELECT e.era, e.xid, e.disabled FROM webhook_endpoint_epochs e WHERE e.endpoint_id = p.endpoint_id ORDER BY e.era DESC, e.xid DESC LIMIT 1
    ) rules ON true
    JOIN journal o ON o.game_id = w.game_id AND o.type IS NOT NULL AND (o.era, o.xid, o.seq) > (p.era, p.xid, p.seq)
      AND (o.era, o.xid) < (CASE WHEN rules.disabled THEN rules.era ELSE ${NO_ERA} END, CASE WHEN rules.disabled THEN rules.xid ELSE ${NO_XID} END)
    WHERE ${which} AND ${also} AND o.body IS NOT NULL
      AND NOT ${hasRowSql('p.endpoint_id', 'o')} AND ${receivesSql('p.endpoint_id', 'o')}`;
}

/**
 * The CTE `cand` of a claim by position: the positions of enabled endpoints that `where` keeps (over
 * `p`, `w` and the horizon `h`), each with what this worker has in flight for it (`flying`) and
 * how many there are, for BUDGETED_SQL.
 */
export const candidatesSql = (where: string): string => `cand AS (
         SELECT p.endpoint_id, coalesce(f.n, 0) AS n, count(*) OVER () AS endpoints, p.era, p.xid, p.seq
         FROM webhook_positions p
         JOIN webhook_endpoints w ON w.id = p.endpoint_id
         CROSS JOIN h
         LEFT JOIN flying f ON f.endpoint_id = p.endpoint_id
         WHERE w.disabled_at IS NULL AND ${where}
       )`;

/**
 * The CTEs `allowance` and `budgeted` of a claim by position: from `cand` (endpoint_id, n in
 * flight here, endpoints, era, xid, seq), each endpoint's `k`: its share ($3) less what it has in
 * flight, within the slots for shares ($4), or the window's free slots ($5) when it is the only
 * endpoint with work; the endpoints furthest behind first, within the claim's budget.
 */
export const BUDGETED_SQL = `allowance AS (
         SELECT endpoint_id, greatest(least($3 - n, $4), CASE WHEN endpoints = 1 THEN $5 ELSE 0 END) AS k,
                CASE WHEN endpoints = 1 THEN greatest($4, $5) ELSE $4 END AS budget, era, xid, seq
         FROM cand
       ), budgeted AS (
         SELECT endpoint_id, greatest(least(k, budget - (sum(k) OVER (ORDER BY era, xid, seq, endpoint_id) - k)), 0) AS k
         FROM allowance
       )`;

/**
 * The first `limit` events of `l`'s game after its position (l.era, l.xid, l.seq) and below the
 * horizon `h`, in the feed's order: a lateral subquery, as `o`.
 */
export const afterPositionSql = (l: string, limit: string): string => `LATERAL (
           SELECT o.id, o.era, o.xid, o.seq, o.type, o.body, o.created_at FROM journal o
           WHERE o.game_id = ${l}.game_id AND o.type IS NOT NULL
             AND (o.era, o.xid, o.seq) > (${l}.era, ${l}.xid, ${l}.seq) AND (o.era, o.xid) < (h.era, h.horizon)
           ORDER BY o.era, o.xid, o.seq LIMIT ${limit}
         ) o`;

/**
 * Whether the event `o` is a first attempt for endpoint `endpoint` to send: it has no row (probed
 * for: a claim reads a few hundred events at most), its body is kept and within retention
 * (`retentionDays`, a parameter) and the endpoint receives it.
 */
export const sendableSql = (endpoint: string, o: string, retentionDays: string): string =>
  `NOT ${hasRowSql(endpoint, o, { probe: true })} AND ${o}.body IS NOT NULL AND ${o}.created_at >= now() - make_interval(days => ${retentionDays})
                  AND ${receivesSql(endpoint, o)}`;
