import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource } from 'typeorm';

/** What one request settled about the databases: where its lag-tolerant reads go, and what it committed. */
export interface ReadContext {
  /** The replica this request's lag-tolerant reads go to, or null for the primary. */
  replica: DataSource | null;
  /** The WAL position past the request's last commit: its consistency token. */
  commitPosition: string | null;
}

const current = new AsyncLocalStorage<ReadContext>();

/** Runs `work` (a request's handler) with `context` as its read context. */
export function withReadContext<T>(context: ReadContext, work: () => T): T {
  return current.run(context, work);
}

export function readContext(): ReadContext | undefined {
  return current.getStore();
}

/** Told by every transaction that commits: the request it belongs to (if any) answers with this position. */
export function noteCommit(position: string | null): void {
  const context = current.getStore();
  if (context && position) context.commitPosition = position;
}
