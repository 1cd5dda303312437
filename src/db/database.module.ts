import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import type { Tracing } from '../observability/tracing/tracing';
import { TRACING } from '../observability/tracing/tracing.module';
import { createDataSource, runMigrations } from './data-source';
import { DbMetrics } from './db-metrics';
import { PgListener } from './pg-listener';
import { UnitOfWork } from './unit-of-work';

/** Connects, applies pending migrations before anything else runs, and closes last on shutdown. */
@Global()
@Module({
  providers: [
    {
      provide: DataSource,
      inject: [SETTINGS, TRACING, DbMetrics],
      useFactory: async (settings: Settings, tracing: Tracing | null, metrics: DbMetrics): Promise<DataSource> => {
        if (!settings.databaseUrl) throw new Error('DATABASE_URL is required');
        const ds = createDataSource({
          url: settings.databaseUrl,
          poolMax: settings.databasePoolMax,
          statementTimeoutMs: settings.databaseStatementTimeoutMs,
          idleInTransactionTimeoutMs: settings.databaseIdleInTransactionTimeoutMs,
          sqlSpans: tracing?.sql,
          onServerError: (code) => metrics.statementError(code),
        });
        await ds.initialize();
        metrics.instrument(ds);
        await runMigrations(ds);
        return ds;
      },
    },
    DbMetrics,
    PgListener,
    UnitOfWork,
  ],
  exports: [DataSource, DbMetrics, PgListener, UnitOfWork],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}
