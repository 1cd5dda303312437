import type { EntityManager } from 'typeorm';

/**
 * Runs raw SQL and returns its rows. TypeORM answers UPDATE and DELETE with `[rows, rowCount]`
 * instead of the rows, which would make `RETURNING` results read wrongly: this evens it out.
 */
export async function sqlRows<R>(manager: EntityManager, sql: string, params: unknown[] = []): Promise<R[]> {
  const result: unknown = await manager.query(sql, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as R[];
  }
  return result as R[];
}
