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
    throw whyReleased(err, lost, 'a transaction');
  } finally {
    if (connection instanceof ServiceClient) connection.endUnitOfWork();
    // The connection goes back to the pool (when still alive) and serves other transactions.
    connection?.removeListener('error', remember);
    await runner.release();
  }
}

/**
 * The error to report when work on a query runner failed with `err`: TypeORM's "already released"
 * means the connection died under the runner (only that releases it mid-work), so the connection's
 * own error (`lost`, from its error event) is the reason; when the socket ended without one, an
 * error that says so. Any other error is itself the reason.
 */
export function whyReleased(err: unknown, lost: unknown, during: string): unknown {
  const released = err instanceof QueryRunnerProviderAlreadyReleasedError || err instanceof QueryRunnerAlreadyReleasedError;
  if (!released) return err;
  return lost ?? new Error(`Connection terminated during ${during}`, { cause: err });
}
