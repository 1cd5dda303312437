import { DataSource, type QueryRunner } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { ENTITIES } from './entities';
import { startNewEraIfRestored, type EraAnnouncer } from './feed-era';
import { installTimestampParser } from './pg-timestamps';
import type { SqlSpans } from '../observability/tracing/sql-spans';
import { ServiceClient, type ServerErrorListener } from './prepared-client';
import { blockingMigrations, incompatibility, readSchemaState, recordReleases } from './schema/schema-state';

export interface DataSourceConfig {
  url: string;
  poolMax?: number;
  applicationName?: string;
  /** statement_timeout of every pooled connection, ms (0, the default, is none: migrations may run long). */
  statementTimeoutMs?: number;
  /** idle_in_transaction_session_timeout of every pooled connection, ms (0 is none). */
  idleInTransactionTimeoutMs?: number;
  /** Says that a connection found the database restored and started a new feed era (the app's log by default). */
  onNewEra?: EraAnnouncer;
  /** The spans of the statements sent for traced work, when traces are on. */
  sqlSpans?: SqlSpans;
  /** Told each error PostgreSQL answers on a pooled connection (the app's metrics). */
  onServerError?: ServerErrorListener;
  /** A read replica's: read-only, so its connections make no feed-era check (the primary's do). */
  readOnly?: boolean;
}

export { DB_CONNECT_TIMEOUT_MS } from './prepared-client';
/**
 * How long a request waits for a pooled connection while all are busy: a burst of load queues
 * rather than failing, yet slow queries holding every connection cannot make requests wait for ever.
 */
export const DB_POOL_WAIT_MS = 10_000;

/** Idle connections are closed after this; a restarted server's dead ones are dropped at once on their error. */
const DB_IDLE_TIMEOUT_MS = 30_000;

/** The one TypeORM data source; the schema comes from migrations only, never `synchronize`. */
export function createDataSource({
  url,
  poolMax = 10,
  applicationName = 'guildhall',
  statementTimeoutMs = 0,
  idleInTransactionTimeoutMs = 0,
  onNewEra,
  sqlSpans,
  onServerError,
  readOnly = false,
}: DataSourceConfig): DataSource {
  installTimestampParser();
  return new DataSource({
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    applicationName,
    poolSize: poolMax,
    extra: {
      max: poolMax,
      Client: ServiceClient,
      // pg's pool hands its options to each client it makes.
      ...(sqlSpans ? { sqlSpans } : {}),
      ...(onServerError ? { onServerError } : {}),
      connectionTimeoutMillis: DB_POOL_WAIT_MS,
      idleTimeoutMillis: DB_IDLE_TIMEOUT_MS,
      // Before its first use: a connection to a database restored from another cluster starts the
      // feed's new era, so that even an instance left running across the restore writes none out of order.
      ...(readOnly ? { commitPositions: false } : { onConnect: (client: ServiceClient) => startNewEraIfRestored(client, onNewEra) }),
      // Sent as session settings when each connection opens: no extra round trip per query.
      // No JIT: every statement here reads or writes few rows, but some are estimated past
      // jit_above_cost on a large table (the live tail's, a game of 150,000 events: 600-1,000 ms to
      // compile, 4 ms to run without).
      options: '-c jit=off',
      ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
      ...(idleInTransactionTimeoutMs > 0 ? { idle_in_transaction_session_timeout: idleInTransactionTimeoutMs } : {}),
    },
  });
}

/** Two instances booting together must not both apply a migration: serialise on an advisory lock. */
const MIGRATION_LOCK = 7_310_422_001;
/** How often an instance waiting for another's migrations tries the lock again. */
const MIGRATION_LOCK_RETRY_MS = 100;

/**
 * Takes the migration lock by trying it again and again, never by waiting inside a statement: a
 * session blocked in pg_advisory_lock holds a snapshot, which a CREATE INDEX CONCURRENTLY of the
 * instance migrating waits to see end, while that instance holds the lock the session waits for.
 * Idle between tries, the waiting instance holds up nothing.
 */
async function takeMigrationLock(runner: QueryRunner): Promise<void> {
  for (;;) {
    const [row] = (await runner.query('SELECT pg_try_advisory_lock($1) AS taken', [MIGRATION_LOCK])) as { taken: boolean }[];
    if (row.taken) return;
    await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_RETRY_MS));
  }
}

/** The database has a migration of a newer release that this build may not run beside (docs/upgrades.md). */
export class SchemaIncompatible extends Error {
  override name = 'SchemaIncompatible';
}

/**
 * Applies the migrations this build has and the database lacks, in order, each in its own
 * transaction unless it says otherwise, and records what each applied one is to the releases.
 * Refuses, changing nothing, a database that has a migration of a newer release this build may not
 * run beside. Answers the names it applied.
 */
export async function runMigrations(ds: DataSource, onNewEra?: EraAnnouncer): Promise<string[]> {
  return withMigrationLock(ds, async (runner) => {
    const before = await readSchemaState(runner.manager);
    const blocking = blockingMigrations(before);
    if (blocking.length) throw new SchemaIncompatible(incompatibility(blocking));
    const ran = (await ds.runMigrations({ transaction: 'each' })).map((m) => m.name);
    await recordReleases(runner.manager, [...before.applied, ...ran]);
    // The connections opened before the schema existed could not check: this one can.
    await startNewEraIfRestored(runner, onNewEra);
    return ran;
  });
}

/** Runs `work` holding the migration lock, on a connection of its own: one process changes the schema at a time. */
export async function withMigrationLock<T>(ds: DataSource, work: (runner: QueryRunner) => Promise<T>): Promise<T> {
  const runner = ds.createQueryRunner();
  try {
    await runner.connect();
    await takeMigrationLock(runner);
    try {
      return await work(runner);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await runner.release();
  }
}

/**
 * For a process that must not migrate (MIGRATE_ON_BOOT=false, the operator command): the schema
 * must hold every migration this build has, and none of a newer release it may not run beside.
 */
export async function requireMigratedSchema(ds: DataSource): Promise<void> {
  const state = await readSchemaState(ds.manager);
  const blocking = blockingMigrations(state);
  if (blocking.length) throw new SchemaIncompatible(incompatibility(blocking));
  if (state.pending.length) {
    const names = state.pending.map((p) => p.name);
    throw new SchemaIncompatible(
      `${names.length} migration${names.length === 1 ? ' is' : 's are'} pending on the database (${names.join(', ')}): ` +
        'apply them first with `guildhall migrate up` (this build), or start the server with MIGRATE_ON_BOOT=true',
    );
  }
}
