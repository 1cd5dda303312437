import type { DataSource, QueryRunner } from 'typeorm';

/** Runs `work` with a query runner of `ds` outside any transaction, as TypeORM runs a migration with `transaction = false`. */
export async function withQueryRunner<T>(ds: DataSource, work: (q: QueryRunner) => Promise<T>): Promise<T> {
  const q = ds.createQueryRunner();
  try {
    await q.connect();
    return await work(q);
  } finally {
    await q.release();
  }
}
