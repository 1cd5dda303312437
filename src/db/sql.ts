import type { DataSource, EntityManager } from 'typeorm';
import { ADVISORY_LOCKS_SQL, advisoryLockValues, type AdvisoryLock } from './advisory-locks';
import { ServiceClient } from './prepared-client';

/**
 * Runs raw SQL and returns its rows. TypeORM answers UPDATE and DELETE with `[rows, rowCount]`
 * instead of the rows, which would make `RETURNING` results read wrongly: this evens it out.
 */
export async function sqlRows<R>(manager: EntityManager, sql: string, params: unknown[] = []): Promise<R[]> {
  const result: unknown = await manager.query(sql, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as R[];
  }
  return result as R[];
}

/**
 * Rows of a read that PostgreSQL gives up on after `timeoutMs` (statement_timeout, set for its own
 * transaction only): the metrics' scrape-time queries, which must never run long. (JIT is off for
 * every connection, data-source.ts: compiling the feed lag's query took 1.5 s, 200 games and
 * 200,000 events, to run it in 17 ms.)
 */
export function boundedRows<R>(ds: DataSource, sql: string, timeoutMs: number): Promise<R[]> {
  return ds.transaction(async (m) => {
    await m.query(`SELECT set_config('statement_timeout', $1, true)`, [String(Math.max(1, Math.floor(timeoutMs)))]);
    return sqlRows<R>(m, sql);
  });
}

/** SQLSTATE connection_failure. */
const CONNECTION_FAILURE = '08006';

/**
 * Rows of a statement that reads below the feed's horizon (HORIZON, feed.repository.ts), on a
 * connection of the pool: the sessions it reads to leave other databases' transactions out are
 * those of an instant before its snapshot (ServiceClient.queryAfterSessions), so a horizon never
 * comes out lower than one a statement finished before it found. Prepared, on its generic plan,
 * unless `planEachCall`.
 */
export function horizonRows<R>(ds: DataSource, sql: string, params: unknown[], planEachCall = false): Promise<R[]> {
  return onPoolClient(ds, (client) => client.queryAfterSessions<R>(sql, params, planEachCall));
}

/**
 * Rows of a statement outside any unit of work, as a named prepared statement on its generic plan
 * (ServiceClient.queryGenericPlan), for one run often enough that planning it on every call cost as
 * much as running it: on the manager's connection when it has one (a transaction of the caller's,
 * to whose end the plan's settings then last), else on a connection of the pool.
 */
export function genericPlanRows<R>(m: EntityManager, sql: string, params: unknown[]): Promise<R[]> {
  const own = serviceClientOf(m);
  if (own) return own.queryGenericPlan<R>(sql, params);
  return onPoolClient(m.connection, (client) => client.queryGenericPlan<R>(sql, params));
}

async function onPoolClient<R>(ds: DataSource, run: (client: ServiceClient) => Promise<R[]>): Promise<R[]> {
  const pool = (ds.driver as unknown as { master: CheckingOut }).master;
  // Checked out with a callback, as TypeORM and pool.query do: the pool's wait is timed that way (db-metrics.ts).
  const [client, release] = await new Promise<[ServiceClient, (err?: Error) => void]>((resolve, reject) =>
    pool.connect((err, c, done) => (err ? reject(err) : resolve([c, done]))),
  );
  // A checked-out client has no listener of the pool's: a connection lost mid-statement (its server
  // killed) emits 'error' beside failing the statement, and unheard that would end the process.
  let failure: Error | undefined;
  const lost = (err: Error) => (failure ??= err);
  client.on('error', lost);
  try {
    return await run(client);
  } catch (err) {
    failure ??= err as Error;
    throw err;
  } finally {
    // A connection that failed is not put back for the next caller; it keeps the listener for what it may still emit.
    if (!failure) client.off('error', lost);
    release(failure);
  }
}

interface CheckingOut {
  connect(cb: (err: Error | undefined, client: ServiceClient, release: (err?: Error) => void) => void): void;
}

/**
 * Rows of a read that hands out feed positions (a feed page, a stream's batch, where a stream
 * starts), read below the horizon as horizonRows reads, and answered by a server that was still
 * whole when it answered: when `handsOut` says the rows name a position, one more round trip on
 * the same connection follows. A primary whose postmaster died (SIGKILL) or that is shutting down
 * (a demotion) ends a backend waiting for its synchronous standby with the commit made locally and visible, never replicated, never
 * acknowledged; a read on another backend of that server in the same instant may see it, and a
 * consumer that stored its id would resume after an event the new primary never had (410 from
 * then on). Such a backend finds its server gone as soon as it waits for the next message, so the
 * second round trip fails, and the read is thrown away and made again on the server that follows.
 */
export async function confirmedRows<R>(ds: DataSource, sql: string, params: unknown[], handsOut: (rows: R[]) => boolean = (rows) => rows.length > 0): Promise<R[]> {
  const runner = ds.createQueryRunner();
  try {
    const rows = await ((await runner.connect()) as ServiceClient).queryAfterSessions<R>(sql, params, true);
    if (handsOut(rows)) {
      await runner.query('SELECT 1').catch((err: unknown) => {
        // pg's error, or TypeORM's for the runner it released on that error: the server is gone (503, not 500).
        throw Object.assign(new Error('connection failure: the server that answered the read is gone', { cause: err }), { code: CONNECTION_FAILURE });
      });
    }
    return rows;
  } finally {
    await runner.release();
  }
}

interface Pool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs a hot read as a named prepared statement on the pool: planned once per connection instead of
 * on every call (for the permission check's miss path, planning costs several times the execution).
 * Outside any transaction only.
 */
export async function preparedRows<R>(ds: DataSource, name: string, text: string, values: unknown[]): Promise<R[]> {
  const pool = (ds.driver as unknown as { master: Pool }).master;
  return (await pool.query({ name, text, values })).rows as R[];
}

/**
 * Takes `locks` (in that order, held to the end of `m`'s transaction) before its next statement:
 * inside a unit of work they ride in that statement's batch, so they cost no round trip of their own.
 */
export async function lockBeforeNextStatement(m: EntityManager, locks: readonly AdvisoryLock[]): Promise<void> {
  if (!locks.length) return;
  const client = unitOfWorkClient(m);
  if (client) return client.lockBeforeNext(locks);
  await m.query(ADVISORY_LOCKS_SQL, advisoryLockValues(locks));
}

/** The unit of work's client when `m` runs inside one (the only place writes happen), else null. */
export function unitOfWorkClient(m: EntityManager): ServiceClient | null {
  const client = serviceClientOf(m);
  return client?.inUnitOfWork ? client : null;
}

/** The connection `m` runs on when it holds one of its own (a transaction's), else null. */
function serviceClientOf(m: EntityManager): ServiceClient | null {
  const client = (m.queryRunner as unknown as { databaseConnection?: unknown } | undefined)?.databaseConnection;
  return client instanceof ServiceClient ? client : null;
}
