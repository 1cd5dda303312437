import type { EventEmitter } from 'node:events';
import {
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
  type DataSource,
  type EntityManager,
} from 'typeorm';

/**
 * `ds.transaction`, keeping the reason when the connection dies between two of its queries.
 * TypeORM then releases the runner at once, and the next query fails with "already released",
 * which reads as a bug; the connection's own error (57P01, "Connection terminated ...") is thrown
 * instead, so the request answers 503 rather than 500 (DECISIONS §30). Postgres has rolled the
 * transaction back either way.
 */
export async function transaction<T>(ds: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  let lost: unknown;
  const remember = (err: unknown) => {
    lost ??= err;
  };
  let connection: EventEmitter | undefined;
  try {
    return await ds.transaction(async (manager) => {
      connection = (manager.queryRunner as { databaseConnection?: EventEmitter } | undefined)?.databaseConnection;
      connection?.on('error', remember);
      return work(manager);
    });
  } catch (err) {
    const released = err instanceof QueryRunnerProviderAlreadyReleasedError || err instanceof QueryRunnerAlreadyReleasedError;
    if (!released) throw err;
    // Only a lost connection releases the runner mid-transaction; its error event may not have
    // reached us (the socket ended rather than erred), so say what happened without it.
    throw lost ?? new Error('Connection terminated during a transaction', { cause: err });
  } finally {
    // The connection goes back to the pool (when still alive) and serves other transactions.
    connection?.removeListener('error', remember);
  }
}
