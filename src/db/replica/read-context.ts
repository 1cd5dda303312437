import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource } from 'typeorm';
import { parsePosition } from './consistency-token';

/**
 * Where a @ReplicaRead() request's lag-tolerant reads go: entered only on those routes and only
 * while a replica is configured. On Node 20 and 22 the first `run` of any AsyncLocalStorage turns
 * promise hooks on for the whole process, which halves the rate of the cheapest requests: nothing
 * else enters it.
 */
const current = new AsyncLocalStorage<DataSource | null>();

/** Runs `work` (a request's handler) with its lag-tolerant reads on `replica` (null: the primary). */
export function withReplica<T>(replica: DataSource | null, work: () => T): T {
  return current.run(replica, work);
}

export function currentReplica(): DataSource | null {
  return current.getStore() ?? null;
}

/**
 * The furthest commit position each primary connection pool has seen commit. A write's answer
 * carries it: it is at or past the write's own commit (which happened before the answer), and a
 * process-wide figure needs no per-request context on the write path.
 */
const latest = new WeakMap<DataSource, bigint>();

/** Told by every transaction that commits, with the position its COMMIT's batch read. */
export function noteCommit(ds: DataSource, position: string | null): void {
  const at = position === null ? null : parsePosition(position);
  if (at === null) return;
  const seen = latest.get(ds);
  if (seen === undefined || at > seen) latest.set(ds, at);
}

/** The furthest commit position seen on `ds`, or null before the first commit. */
export function latestCommitPosition(ds: DataSource): bigint | null {
  return latest.get(ds) ?? null;
}
