import type { DataSource } from 'typeorm';

export interface CapturedStatement {
  name?: string;
  sql: string;
  params: unknown[];
}

/**
 * A stand-in DataSource for repository methods that run named prepared statements on the pool
 * (`preparedRows`): it records each statement and answers with `rows`, so a test can EXPLAIN
 * exactly what the repository sends.
 */
export function captureDataSource(rows: unknown[] = [{}]): { ds: DataSource; statements: CapturedStatement[] } {
  const statements: CapturedStatement[] = [];
  const pool = {
    query: async ({ name, text, values }: { name?: string; text: string; values: unknown[] }) => {
      statements.push({ name, sql: text, params: values });
      return { rows };
    },
    // horizonRows checks a connection out and runs its statement after the sessions' read.
    connect: (cb: (err: undefined, client: unknown, release: () => void) => void) => cb(undefined, sessionsClient(async (sql, params) => (statements.push({ sql, params }), rows)), () => undefined),
  };
  return { ds: { driver: { master: pool } } as unknown as DataSource, statements };
}

/** A connection whose statements run after the sessions' read or on their generic plans (ServiceClient's) go to `query`. */
function sessionsClient(query: (sql: string, params: unknown[]) => Promise<unknown>) {
  const run = (sql: string, params: unknown[]) => query(sql, params);
  return { queryAfterSessions: run, queryGenericPlan: run, on: () => undefined, off: () => undefined };
}

/**
 * A stand-in DataSource whose every statement, on `ds.manager`, on a query runner it creates
 * (`confirmedRows` reads on one) or on a connection of its pool (`horizonRows`), goes to `query`:
 * a test records what a repository sends.
 */
export function routedDataSource(query: (sql: string, params: unknown[]) => Promise<unknown>): DataSource {
  const manager = { query: (sql: string, params: unknown[] = []) => query(sql, params) };
  const client = sessionsClient(query);
  const pool = { connect: (cb: (err: undefined, c: unknown, release: () => void) => void) => cb(undefined, client, () => undefined) };
  return {
    manager,
    driver: { master: pool },
    createQueryRunner: () => ({ manager, query: manager.query, connect: async () => client, release: async () => undefined }),
  } as unknown as DataSource;
}
