/**
 * Tells a database that cannot be reached apart from everything else that can go wrong with a query
 * (DECISIONS §30): the first answers 503 `service_unavailable`, the rest stays 500 `internal`.
 * Pure: it only reads the error, so the filter, the background loops and the tests share it.
 */

/** Socket failures between this process and the server; no other network traffic runs inside a request. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * admin_shutdown, crash_shutdown, cannot_connect_now: a server going away or not back yet;
 * query_canceled and idle_in_transaction_session_timeout: the statement or transaction ran past the
 * service's own timeouts (a lock held elsewhere, an overloaded server); and read_only_sql_transaction:
 * a write reached a standby, which happens only while a failover or switchover moves the primary
 * (a connection opened to the old one just as it was demoted; the service's own read-only
 * transactions never write). Retrying later is the client's move in every case, so they answer alike.
 */
const SERVER_GOING_AWAY = new Set(['57P01', '57P02', '57P03', '57014', '25P03', '25006']);

/** SQLSTATE class 08, connection exception. */
const CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/;

/**
 * What pg and pg-pool say, without a code, when a connection dies or cannot be had in time.
 * "Client was closed" and "pool after calling end" are left out: only this process's own
 * shutdown causes those.
 */
const DRIVER_MESSAGES = [
  /^Connection terminated\b/,
  /^timeout exceeded when trying to connect$/,
  // pg's own connect timeout (the pool's clients open connections with a short one).
  /^timeout expired$/,
  /due to connection timeout/,
  /^Client has encountered a connection error and is not queryable$/,
];

/** TypeORM's QueryFailedError keeps the driver's error in `driverError`; Node and pg chain with `cause` and `errors`. */
const MAX_DEPTH = 4;

/**
 * A short description of why the database is unreachable (`ECONNREFUSED: connect ECONNREFUSED
 * 127.0.0.1:5432`, `57P01: terminating connection ...`), or null when `err` is something else.
 */
export function databaseUnavailableCause(err: unknown): string | null {
  return visit(err, 0, new Set());
}

function visit(err: unknown, depth: number, seen: Set<object>): string | null {
  if (typeof err !== 'object' || err === null || seen.has(err) || depth > MAX_DEPTH) return null;
  seen.add(err);
  const { code, message, driverError, cause, errors } = err as Record<string, unknown>;
  const text = typeof message === 'string' ? message : '';
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_GOING_AWAY.has(code) || CONNECTION_EXCEPTION.test(code))) {
    return text.includes(code) ? text : `${code}: ${text}`;
  }
  if (DRIVER_MESSAGES.some((m) => m.test(text))) return text;
  for (const inner of [driverError, cause, ...(Array.isArray(errors) ? errors : [])]) {
    const found = visit(inner, depth + 1, seen);
    if (found) return found;
  }
  return null;
}
