import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { ENTITIES } from './entities';
import { installTimestampParser } from './pg-timestamps';

export interface DataSourceConfig {
  url: string;
  poolMax?: number;
  applicationName?: string;
}

/**
 * How long a request waits for a pool connection, whether a new one is being opened or all are busy
 * (DECISIONS §30): with a database that hangs or is swamped, a request then answers 503 within the
 * 2 s the health check allows rather than waiting on. A refused connection fails at once anyway.
 */
export const DB_CONNECT_TIMEOUT_MS = 1_500;
/** Idle connections are closed after this; a restarted server's dead ones are dropped at once on their error. */
const DB_IDLE_TIMEOUT_MS = 30_000;

/** The one TypeORM data source; the schema comes from migrations only, never `synchronize`. */
export function createDataSource({ url, poolMax = 10, applicationName = 'guildhall' }: DataSourceConfig): DataSource {
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
    extra: { max: poolMax, connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS, idleTimeoutMillis: DB_IDLE_TIMEOUT_MS },
  });
}

/** Two instances booting together must not both apply a migration: serialise on an advisory lock. */
const MIGRATION_LOCK = 7_310_422_001;

export async function runMigrations(ds: DataSource): Promise<void> {
  const runner = ds.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await ds.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await runner.release();
  }
}
