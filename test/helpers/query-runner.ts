import { DataSource, type QueryRunner } from 'typeorm';
import { createTestDatabase } from './test-db';

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

/** Runs `work` on a query runner of a migrated database of its own, dropped after: for a migration's down and up. */
export async function onFreshDatabase(work: (q: QueryRunner) => Promise<void>): Promise<void> {
  const other = await createTestDatabase();
  const ds = new DataSource({ type: 'postgres', url: other.url });
  await ds.initialize();
  try {
    await withQueryRunner(ds, work);
  } finally {
    await ds.destroy();
    await other.drop();
  }
}
