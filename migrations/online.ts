import type { QueryRunner } from 'typeorm';

/**
 * Schema changes that stay out of the way of the release still serving (docs/operations.md,
 * "Schema changes"). During a rolling upgrade the previous release keeps writing while a migration
 * runs, so a migration must never make those writes wait for long:
 *
 * - A statement that takes a lock blocking writes (most ALTER TABLE, CREATE TRIGGER, a plain DROP
 *   INDEX) waits for that lock with a short `lock_timeout`: while it waits, every write to the
 *   table queues behind it, so behind a long transaction it gives up after LOCK_TIMEOUT, lets the
 *   queue drain, and tries again after a pause, a bounded number of times (`lockedTransaction`).
 *   Once it has the lock it must be quick: a `statement_timeout` stops one that would hold it
 *   while it reads the table.
 * - An index on a table that exists is built CONCURRENTLY, outside a transaction, and can be built
 *   again after an interruption (`createIndexConcurrently`); it waits for older transactions
 *   without blocking any write, so it runs without either timeout.
 * - A NOT NULL or other constraint on an existing table is added NOT VALID (a catalog change) and
 *   validated apart (a scan that blocks no write).
 * - Existing rows are rewritten in batches by key range (`backfillInBatches`), each batch a
 *   transaction short enough that its row locks are never held for as long as a second.
 */

/** How long a statement waits for a lock that blocks writes before it gives up and tries again. */
export const LOCK_TIMEOUT = '2s';
/** A statement holding such a lock is a catalog change: stopped if it takes longer (this includes the lock wait). */
export const QUICK_STATEMENT_TIMEOUT = '15s';
/** Tries of a statement whose lock did not come in time: about a minute of trying in all. */
export const LOCK_ATTEMPTS = 10;
const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 8_000;

const LOCK_NOT_AVAILABLE = '55P03';
/** Two transactions waiting on each other: PostgreSQL ends one, and when it is ours it is tried again the same way. */
const DEADLOCK_DETECTED = '40P01';

export interface LockOptions {
  /** lock_timeout of each statement (LOCK_TIMEOUT). */
  lockTimeout?: string;
  /** statement_timeout of each statement (QUICK_STATEMENT_TIMEOUT); '0' for none. */
  statementTimeout?: string;
  /** Tries in all (LOCK_ATTEMPTS). */
  attempts?: number;
}

export function sqlState(err: unknown): string | undefined {
  const e = err as { code?: string; driverError?: { code?: string } };
  return e.code ?? e.driverError?.code;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Short first, as most transactions in the way end soon, then doubling; jittered so as not to fall in step with a periodic writer. */
function pauseBefore(attempt: number): number {
  return Math.min(FIRST_PAUSE_MS * 2 ** (attempt - 1), LONGEST_PAUSE_MS) + Math.floor(Math.random() * FIRST_PAUSE_MS);
}

/**
 * Runs `work` in a transaction of its own in which every statement waits at most `lockTimeout` for
 * a lock and runs at most `statementTimeout`. When a lock does not come in time the transaction is
 * rolled back, which lets the writes queued behind it through, and run again after a pause (a
 * deadlock that PostgreSQL settled by ending ours likewise); after `attempts` tries the error is
 * thrown, naming what to look for. Nothing is held during a pause.
 *
 * Inside a transaction it did not start (the down of a migration that runs in one) it cannot roll
 * back and try again: it sets the timeouts for `work` and makes one try, which gives up rather than
 * make writes queue; the whole migration can then be run again.
 */
export async function lockedTransaction<T>(q: QueryRunner, work: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const { lockTimeout = LOCK_TIMEOUT, statementTimeout = QUICK_STATEMENT_TIMEOUT, attempts = LOCK_ATTEMPTS } = options;
  const setTimeouts = async () => {
    await q.query(`SET LOCAL lock_timeout = '${lockTimeout}'`);
    await q.query(`SET LOCAL statement_timeout = '${statementTimeout}'`);
  };
  if (q.isTransactionActive) {
    await setTimeouts();
    const result = await work();
    await q.query('SET LOCAL lock_timeout TO DEFAULT');
    await q.query('SET LOCAL statement_timeout TO DEFAULT');
    return result;
  }
  for (let attempt = 1; ; attempt++) {
    await q.startTransaction();
    try {
      await setTimeouts();
      const result = await work();
      await q.commitTransaction();
      return result;
    } catch (err) {
      if (q.isTransactionActive) await q.rollbackTransaction().catch(() => undefined);
      const code = sqlState(err);
      if (code !== LOCK_NOT_AVAILABLE && code !== DEADLOCK_DETECTED) throw err;
      if (attempt >= attempts) {
        const e = err as Error;
        e.message =
          `${e.message}: a lock was not granted within ${lockTimeout} in ${attempts} tries over a minute or more; ` +
          'a long transaction holds the table (see pg_stat_activity, pg_blocking_pids): end it, then start again, the migration picks up where it stopped';
        throw e;
      }
      await sleep(pauseBefore(attempt));
    }
  }
}

/** One statement taking a lock that blocks writes, run as `lockedTransaction` runs its work. */
export function lockedStatement(q: QueryRunner, sql: string, params?: unknown[], options?: LockOptions): Promise<unknown> {
  return lockedTransaction(q, () => q.query(sql, params), options);
}

export interface IndexDefinition {
  name: string;
  table: string;
  /** What follows `ON <table>`: `USING gin (...)`, `(a, b DESC) WHERE ...`. */
  definition: string;
  unique?: boolean;
}

async function indexState(q: QueryRunner, name: string): Promise<'valid' | 'invalid' | 'missing'> {
  const [found] = (await q.query(
    `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace`,
    [name],
  )) as { valid: boolean }[];
  return found ? (found.valid ? 'valid' : 'invalid') : 'missing';
}

/**
 * The index, built CONCURRENTLY unless it exists and is valid; one left INVALID by a build that
 * was interrupted (a crash, a cancel) is dropped and built again. Outside a transaction only.
 */
export async function createIndexConcurrently(q: QueryRunner, { name, table, definition, unique = false }: IndexDefinition): Promise<void> {
  const state = await indexState(q, name);
  if (state === 'valid') return;
  if (state === 'invalid') await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  await q.query(`CREATE ${unique ? 'UNIQUE ' : ''}INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${table} ${definition}`);
}

/**
 * Drops the index CONCURRENTLY; inside a transaction (the down of a migration that runs in one)
 * that cannot be, so plainly, with the lock timeouts.
 */
export async function dropIndex(q: QueryRunner, name: string): Promise<void> {
  if (q.isTransactionActive) await lockedStatement(q, `DROP INDEX IF EXISTS ${name}`);
  else await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}

/**
 * Builds the index in a down: concurrently outside a transaction, plainly inside one (the down of
 * a migration that runs in a transaction, where a build blocks the table's writes until it ends).
 */
export async function restoreIndex(q: QueryRunner, index: IndexDefinition): Promise<void> {
  if (!q.isTransactionActive) return createIndexConcurrently(q, index);
  await lockedStatement(q, `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${index.name} ON ${index.table} ${index.definition}`, undefined, {
    statementTimeout: '0',
  });
}

export interface Backfill {
  /**
   * One batch, with $1 the last key of the previous batch (null before the first) and $2 the batch
   * size: it updates the rows of the next `$2` keys in order and answers one row `{ last }`, the
   * last key it covered (null once there are none left).
   */
  batch: string;
  /** Rows per batch to start with: grown up to maxRows while batches are quick, shrunk when one is slow. */
  rows?: number;
  minRows?: number;
  maxRows?: number;
}

/** A batch that took longer than this is halved: row locks are held for as long as a batch runs. */
const SLOW_BATCH_MS = 300;
const QUICK_BATCH_MS = 50;

/**
 * Rewrites rows in batches by key range, each its own short transaction (outside one only). A batch
 * that meets a row another transaction has locked waits at most 1 s, meanwhile holding the row
 * locks it already took, then gives up and is tried again; its statement_timeout keeps any batch
 * from holding its locks for long.
 */
export async function backfillInBatches(q: QueryRunner, { batch, rows = 2_000, minRows = 200, maxRows = 5_000 }: Backfill): Promise<number> {
  if (q.isTransactionActive) throw new Error('backfillInBatches commits each batch: it runs outside a transaction');
  let last: unknown = null;
  let size = rows;
  let batches = 0;
  for (;;) {
    const started = Date.now();
    const [row] = (await lockedStatement(q, batch, [last, size], { lockTimeout: '1s', statementTimeout: '5s' })) as { last: unknown }[];
    batches++;
    if (row?.last === null || row?.last === undefined) return batches;
    last = row.last;
    const took = Date.now() - started;
    if (took > SLOW_BATCH_MS) size = Math.max(minRows, Math.floor(size / 2));
    else if (took < QUICK_BATCH_MS) size = Math.min(maxRows, size * 2);
  }
}

/**
 * Whether the table, index or other relation exists: the guard of a step whose statements commit
 * together, so that finding one of them means an earlier run committed them all.
 */
export async function relationExists(q: QueryRunner, name: string): Promise<boolean> {
  const [row] = (await q.query('SELECT to_regclass($1) IS NOT NULL AS present', [name])) as { present: boolean }[];
  return row.present;
}

/** Whether the table has a constraint of that name (ADD CONSTRAINT has no IF NOT EXISTS). */
export async function hasConstraint(q: QueryRunner, table: string, name: string): Promise<boolean> {
  const rows = (await q.query(`SELECT 1 FROM pg_constraint WHERE conrelid = to_regclass($1) AND conname = $2`, [table, name])) as unknown[];
  return rows.length > 0;
}

/** Whether the column is NOT NULL already. */
export async function isNotNull(q: QueryRunner, table: string, column: string): Promise<boolean> {
  const [row] = (await q.query(`SELECT attnotnull AS "notNull" FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = $2 AND NOT attisdropped`, [
    table,
    column,
  ])) as { notNull: boolean }[];
  return row?.notNull === true;
}

/**
 * NOT NULL on an existing column without a scan under a lock that blocks writes: a CHECK added
 * NOT VALID (a catalog change), validated (a scan that blocks no write), then SET NOT NULL, which
 * PostgreSQL 12 and later take from the validated CHECK without scanning, and the CHECK dropped
 * again. Each step can run again.
 */
export async function setNotNull(q: QueryRunner, table: string, column: string): Promise<void> {
  if (await isNotNull(q, table, column)) return;
  // Not <table>_<column>_not_null: PostgreSQL 18 gives that name to the NOT NULL constraint itself.
  const check = `${table}_${column}_not_null_check`;
  if (!(await hasConstraint(q, table, check))) {
    await lockedStatement(q, `ALTER TABLE ${table} ADD CONSTRAINT ${check} CHECK (${column} IS NOT NULL) NOT VALID`);
  }
  await q.query(`ALTER TABLE ${table} VALIDATE CONSTRAINT ${check}`);
  await lockedTransaction(q, async () => {
    await q.query(`ALTER TABLE ${table} ALTER COLUMN ${column} SET NOT NULL`);
    await q.query(`ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${check}`);
  });
}
