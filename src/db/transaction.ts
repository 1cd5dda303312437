import type { EventEmitter } from 'node:events';
import {
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
  type DataSource,
  type EntityManager,
} from 'typeorm';
import { ServiceClient } from './prepared-client';
import { noteCommit } from './replica/read-context';

/**
 * `ds.transaction` (as TypeORM runs it), keeping the reason when the connection dies between two of
 * its queries (ConnectionLoss), so the request answers 503 rather than 500 (DECISIONS §30). Postgres
 * has rolled the transaction back either way. A unit of work's transaction takes fewer round trips
 * (ServiceClient). The commit's WAL position feeds the consistency token of write answers.
 */
export async function transaction<T>(
  ds: DataSource,
  work: (manager: EntityManager) => Promise<T>,
  { unitOfWork = false }: { unitOfWork?: boolean } = {},
): Promise<T> {
  const loss = new ConnectionLoss('a transaction');
  const runner = ds.createQueryRunner();
  let connection: EventEmitter | undefined;
  try {
    connection = (await runner.connect()) as EventEmitter;
    loss.watch(connection);
    const client = connection instanceof ServiceClient ? connection : null;
    // A position left by another caller's COMMIT on this pooled connection is not this transaction's.
    client?.takeCommitPosition();
    if (unitOfWork) client?.startUnitOfWork();
    await runner.startTransaction();
    try {
      const result = await work(runner.manager);
      await runner.commitTransaction();
      if (client) noteCommit(ds, client.takeCommitPosition());
      return result;
    } catch (err) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    }
  } catch (err) {
    throw loss.reason(err);
  } finally {
    if (connection instanceof ServiceClient) connection.endUnitOfWork();
    // The connection goes back to the pool (when still alive) and serves other transactions.
    loss.stop();
    await runner.release();
  }
}

/**
 * Watches a query runner's connection for the error that ends it. TypeORM releases a runner whose
 * connection dies, and its next query fails with "already released", which reads as a bug: the
 * connection's own error (57P01, "Connection terminated ...") is the reason to report; when the
 * socket ended without one, an error that says so.
 */
export class ConnectionLoss {
  private lost: unknown;
  private connection?: EventEmitter;
  private readonly remember = (err: unknown): void => {
    this.lost ??= err;
  };

  /** `during` names the work in the error made when the connection gave none ("a transaction"). */
  constructor(private readonly during: string) {}

  watch(connection: EventEmitter): void {
    this.connection = connection;
    connection.on('error', this.remember);
  }

  stop(): void {
    this.connection?.removeListener('error', this.remember);
  }

  /** The error to report for `err`: itself, unless it is TypeORM's "already released". */
  reason(err: unknown): unknown {
    const released = err instanceof QueryRunnerProviderAlreadyReleasedError || err instanceof QueryRunnerAlreadyReleasedError;
    if (!released) return err;
    return this.lost ?? new Error(`Connection terminated during ${this.during}`, { cause: err });
  }
}
