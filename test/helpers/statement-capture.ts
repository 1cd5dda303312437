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
  };
  return { ds: { driver: { master: pool } } as unknown as DataSource, statements };
}

/**
 * A stand-in DataSource whose every statement, on `ds.manager` or on a query runner it creates
 * (`confirmedRows` reads on one), goes to `query`: a test records what a repository sends.
 */
export function routedDataSource(query: (sql: string, params: unknown[]) => Promise<unknown>): DataSource {
  const manager = { query: (sql: string, params: unknown[] = []) => query(sql, params) };
  return { manager, createQueryRunner: () => ({ manager, query: manager.query, release: async () => undefined }) } as unknown as DataSource;
}
