import type { EventEmitter } from 'node:events';
import {
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
  type DataSource,
  type EntityManager,
} from 'typeorm';
import { ServiceClient } from './prepared-client';

/**
 * `ds.transaction` (as TypeORM runs it), keeping the reason when the connection dies between two of its queries.
 * TypeORM then releases the runner at once, and the next query fails with "already released",
 * which reads as a bug; the connection's own error (57P01, "Connection terminated ...") is thrown
 * instead, so the request answers 503 rather than 500 (DECISIONS §30). Postgres has rolled the
 * transaction back either way. A unit of work's transaction takes fewer round trips (ServiceClient).
 */
export async function transaction<T>(
  ds: DataSource,
  work: (manager: EntityManager) => Promise<T>,
  { unitOfWork = false }: { unitOfWork?: boolean } = {},
): Promise<T> {
  let lost: unknown;
  const remember = (err: unknown) => {
    lost ??= err;
  };
  const runner = ds.createQueryRunner();
  let connection: EventEmitter | undefined;
  try {
    connection = (await runner.connect()) as EventEmitter;
    connection.on('error', remember);
    if (unitOfWork && connection instanceof ServiceClient) connection.startUnitOfWork();
    await runner.startTransaction();
    try {
      const result = await work(runner.manager);
      await runner.commitTransaction();
      return result;
    } catch (err) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    }
  } catch (err) {
    const released = err instanceof QueryRunnerProviderAlreadyReleasedError || err instanceof QueryRunnerAlreadyReleasedError;
    if (!released) throw err;
    // Only a lost connection releases the runner mid-transaction; its error event may not have
    // reached us (the socket ended rather than erred), so say what happened without it.
    throw lost ?? new Error('Connection terminated during a transaction', { cause: err });
  } finally {
    if (connection instanceof ServiceClient) connection.endUnitOfWork();
    // The connection goes back to the pool (when still alive) and serves other transactions.
    connection?.removeListener('error', remember);
    await runner.release();
  }
}
