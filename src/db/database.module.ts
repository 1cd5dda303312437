import { Global, Inject, Logger, Module, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { MetricsRegistry } from '../observability/metrics/metrics-registry';
import type { Tracing } from '../observability/tracing/tracing';
import { TRACING } from '../observability/tracing/tracing.module';
import { CommitAnnouncer } from './commit-announcer';
import { createDataSource, requireMigratedSchema, runMigrations } from './data-source';
import { DbMetrics } from './db-metrics';
import { loadUnindexedWords, requireSameNameHash, UNINDEXED_WORDS } from './journal-names';
import { SchemaWatch } from './schema/schema-watch';
import { PgListener } from './pg-listener';
import { loadConsistencyTokens } from './replica/consistency-key';
import { ConsistencyTokens } from './replica/consistency-token';
import { ReplicaReadInterceptor } from './replica/replica-read.interceptor';
import { ReadSource } from './replica/read-source';
import { registerReplicaMetrics } from './replica/replica-metrics';
import { ReplicaRouter } from './replica/replica-router';
import { UnitOfWork } from './unit-of-work';

/**
 * Connects, applies pending migrations before anything else runs, and closes last on shutdown.
 * With DATABASE_READ_URL, also the read replica and the router that decides each read's server.
 */
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
        // The server's boot has migrated already (or was told not to); this settles what it must.
        if (settings.migrateOnBoot) await runMigrations(ds);
        else await requireMigratedSchema(ds);
        await requireSameNameHash((sql, params) => ds.query(sql, params));
        return ds;
      },
    },
    {
      provide: ReplicaRouter,
      inject: [SETTINGS, TRACING, DbMetrics, MetricsRegistry, DataSource],
      useFactory: async (settings: Settings, tracing: Tracing | null, metrics: DbMetrics, registry: MetricsRegistry, primary: DataSource) => {
        if (!settings.databaseReadUrl) {
          registerReplicaMetrics(registry, null);
          return null;
        }
        const replica = createDataSource({
          url: settings.databaseReadUrl,
          poolMax: settings.databasePoolMax,
          applicationName: 'guildhall-replica',
          statementTimeoutMs: settings.databaseStatementTimeoutMs,
          sqlSpans: tracing?.sql,
          onServerError: (code) => metrics.statementError(code),
          readOnly: true,
        });
        // A replica down at boot leaves every read on the primary; the router connects it later.
        await replica.initialize().catch((err: unknown) => new Logger('ReplicaRouter').warn({ err }, 'the read replica is unreachable: reads go to the primary'));
        const router = new ReplicaRouter(primary, replica, { maxLagMs: settings.readReplicaMaxLagMs, waitMs: settings.readReplicaWaitMs });
        registerReplicaMetrics(registry, router);
        return router;
      },
    },
    { provide: ConsistencyTokens, inject: [DataSource], useFactory: loadConsistencyTokens },
    { provide: UNINDEXED_WORDS, inject: [DataSource], useFactory: (ds: DataSource) => loadUnindexedWords((sql) => ds.query(sql)) },
    ReplicaReadInterceptor,
    SchemaWatch,
    DbMetrics,
    PgListener,
    ReadSource,
    UnitOfWork,
    CommitAnnouncer,
  ],
  exports: [DataSource, ConsistencyTokens, SchemaWatch, DbMetrics, PgListener, ReadSource, ReplicaReadInterceptor, ReplicaRouter, UnitOfWork],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Optional() @Inject(ReplicaRouter) private readonly router: ReplicaRouter | null,
    private readonly announcer: CommitAnnouncer,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    // The last commits' wake-ups, before the pool goes: another instance would otherwise keep a
    // group's cached permission answers until they end.
    await this.announcer.settled();
    if (this.router?.replica.isInitialized) await this.router.replica.destroy();
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}
