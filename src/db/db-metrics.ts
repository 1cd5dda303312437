import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { databaseUnavailableCause } from '../common/errors/db-unavailable';
import { sqlStateClass } from '../observability/metrics/labels';
import { ScrapeCache } from '../observability/metrics/scrape-cache';
import { MetricsRegistry } from '../observability/metrics/metrics-registry';
import { OutageClock } from './outage-clock';
import { boundedRows } from './sql';

/** pg-pool as the metrics see it: its counts, its checkout and its events. */
interface PoolLike {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
  connect(cb?: (err: Error | undefined, client: unknown, release: unknown) => void): unknown;
  on(event: 'connect', listener: () => void): unknown;
}

/** From an idle connection handed over at once to DB_POOL_WAIT_MS (10 s), when the wait gives up. */
const POOL_WAIT_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** The ping that ends an outage period at a scrape, when nothing else has. */
const PROBE_TIMEOUT_MS = 1_000;
/** Scrape-time queries: measured at most this often, given up on after this long, shown this long after a failure. */
const SCRAPE_TTL_MS = 5_000;
const SCRAPE_TIMEOUT_MS = 2_000;
const SCRAPE_STALE_MS = 30_000;

/**
 * The database's families: the pool (size, in use, waiting, the wait for a connection), the
 * statements PostgreSQL refused by SQLSTATE class, and the periods it was unavailable.
 */
@Injectable()
export class DbMetrics {
  private readonly outage = new OutageClock();
  private pool: PoolLike | null = null;
  private ds: DataSource | null = null;
  private readonly statementErrors;
  private readonly poolWait;

  constructor(
    private readonly metrics: MetricsRegistry,
    @Inject(SETTINGS) settings: Settings,
  ) {
    const pool = () => this.pool;
    metrics.gauge({
      name: 'svc_db_pool_max',
      help: 'Connections this instance\'s pool may open (DATABASE_POOL_MAX).',
      collect() {
        this.set(settings.databasePoolMax);
      },
    });
    metrics.gauge({
      name: 'svc_db_pool_connections',
      help: 'Connections the pool holds open, idle or in use.',
      collect() {
        this.set(pool()?.totalCount ?? 0);
      },
    });
    metrics.gauge({
      name: 'svc_db_pool_connections_in_use',
      help: 'Connections of the pool checked out by a request or background task.',
      collect() {
        const p = pool();
        this.set(p ? p.totalCount - p.idleCount : 0);
      },
    });
    metrics.gauge({
      name: 'svc_db_pool_waiting',
      help: 'Requests and tasks waiting for a connection of the pool (every one is in use).',
      collect() {
        this.set(pool()?.waitingCount ?? 0);
      },
    });
    this.poolWait = metrics.histogram({
      name: 'svc_db_pool_wait_seconds',
      help: 'Time to get a connection from the pool (opening one included), by outcome: acquired, or failed (the 10 s wait ran out, or the database refused).',
      labelNames: ['outcome'] as const,
      buckets: POOL_WAIT_BUCKETS,
    });
    this.statementErrors = metrics.counter({
      name: 'svc_db_statement_errors_total',
      help: 'Errors PostgreSQL answered to the service\'s statements, by SQLSTATE class (the code\'s first two characters: 23 integrity, 40 rollback, 57 operator intervention...).',
      labelNames: ['sqlstate_class'] as const,
    });
    const outage = this.outage;
    const probe = () => this.probe();
    metrics.gauge({
      name: 'svc_db_unavailable',
      help: '1 while this instance finds the database unavailable (its requests answer 503), else 0.',
      async collect() {
        if (outage.down) await probe();
        this.set(outage.down ? 1 : 0);
      },
    });
    metrics.counterOf(
      {
        name: 'svc_db_unavailable_periods_total',
        help: 'Periods this instance found the database unavailable: from its first failure to reach it to its next success.',
      },
      () => outage.periods,
    );
    metrics.counterOf(
      {
        name: 'svc_db_unavailable_seconds_total',
        help: 'Time this instance found the database unavailable, the current period included.',
      },
      () => outage.seconds(),
    );
  }

  /** The pool as it is now: connections in use and requests waiting for one (null before the pool exists). */
  poolLoad(): { inUse: number; waiting: number } | null {
    const p = this.pool;
    return p ? { inUse: p.totalCount - p.idleCount, waiting: p.waitingCount } : null;
  }

  /** Hooks the data source's pool once it is initialised: its checkout is timed, and each new connection ends an outage. */
  instrument(ds: DataSource): void {
    const pool = (ds.driver as unknown as { master?: PoolLike }).master;
    if (!pool) return;
    this.ds = ds;
    this.pool = pool;
    pool.on('connect', () => this.outage.succeeded());
    if (!this.metrics.enabled) return;
    const connect = pool.connect.bind(pool);
    const wait = this.poolWait;
    // TypeORM checks connections out with a callback; the timing costs two clock reads and no promise.
    pool.connect = (cb) => {
      if (!cb) return connect();
      const started = performance.now();
      return connect((err, client, release) => {
        wait.observe({ outcome: err ? 'failed' : 'acquired' }, (performance.now() - started) / 1000);
        cb(err, client, release);
      });
    };
  }

  /**
   * A query run at scrape time (the webhook backlog, the feed's lag), never per request: at most
   * once per 5 s, 2 s at most (in PostgreSQL and here), its last answer shown for 30 s while it
   * fails. Its outcome also opens or ends an outage period.
   */
  scrapeQuery<R>(sql: string): ScrapeCache<R[]> {
    return new ScrapeCache(
      async () => {
        if (!this.ds?.isInitialized) throw new Error('the data source is not initialised');
        const rows = await boundedRows<R>(this.ds, sql, SCRAPE_TIMEOUT_MS);
        this.outage.succeeded();
        return rows;
      },
      {
        ttlMs: SCRAPE_TTL_MS,
        timeoutMs: SCRAPE_TIMEOUT_MS,
        staleMs: SCRAPE_STALE_MS,
        onError: (err) => {
          if (databaseUnavailableCause(err)) this.outage.failed();
        },
      },
    );
  }

  /** PostgreSQL answered a statement with an error (the pooled clients call this, see ServiceClient). */
  statementError(code: unknown): void {
    this.statementErrors.inc({ sqlstate_class: sqlStateClass(code) });
  }

  /** Something failed to reach the database: a period begins, unless one is open. */
  unavailable(): void {
    this.outage.failed();
  }

  /** Something reached the database: the open period, if any, ends. */
  available(): void {
    this.outage.succeeded();
  }

  private async probe(): Promise<void> {
    const ds = this.ds;
    if (!ds?.isInitialized) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, PROBE_TIMEOUT_MS)));
    const ping = ds.query('SELECT 1').then(
      () => this.outage.succeeded(),
      () => undefined,
    );
    await Promise.race([ping, timeout]).finally(() => clearTimeout(timer));
  }
}
