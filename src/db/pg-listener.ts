import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { SETTINGS } from '../config/settings.module';
import type { Settings } from '../config/settings';
import { DB_CONNECT_TIMEOUT_MS } from './data-source';
import { DbMetrics } from './db-metrics';

type Handler = (payload: string) => void;

interface Subscription {
  onMessage: Handler;
  /** Called after a reconnect: notifications sent while disconnected are lost. */
  onReset?: () => void;
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

const FIRST_RETRY_MS = 250;
/**
 * Kept short: what other instances commit between the database's return and the reconnect never
 * reaches this one's streams, and a refused attempt costs nothing.
 */
const MAX_RETRY_MS = 2_000;

/** The error as one short line: an outage is expected and its stack says nothing. */
const oneLine = (err: unknown) => (err instanceof Error ? err.message || err.name : String(err));

/**
 * One LISTEN connection per process, shared by every module that must hear about commits made by
 * other instances (cache invalidation, events). Notifications are sent inside the writing
 * transaction (`pg_notify`), so they arrive only if it commits, or after its commit
 * (CommitAnnouncer: wake-ups whose loss costs only latency).
 */
@Injectable()
export class PgListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PgListener.name);
  private readonly subs = new Map<string, Subscription[]>();
  private client: Client | null = null;
  private stopped = false;
  private retryMs = FIRST_RETRY_MS;
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** When the connection was lost, while it is; the retries of one outage are logged once. */
  private lostAt: number | null = null;

  constructor(
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly db: DbMetrics,
  ) {}

  subscribe(channel: string, onMessage: Handler, onReset?: () => void): void {
    if (!CHANNEL.test(channel)) throw new Error(`invalid channel name ${channel}`);
    const list = this.subs.get(channel) ?? [];
    list.push({ onMessage, onReset });
    this.subs.set(channel, list);
    if (list.length === 1 && this.client) {
      this.client.query(`LISTEN ${channel}`).catch((err) => this.lost(err));
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.settings.databaseUrl,
      application_name: 'guildhall-listener',
      // A hung server must not stall the reconnect loop; keep-alive notices a silently dead peer
      // on a connection that otherwise only waits.
      connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    // Until it is set up, a failure surfaces as the rejection below: counting its events as well
    // would start a second reconnect.
    let ready = false;
    client.on('notification', (n) => this.dispatch(n.channel, n.payload ?? ''));
    client.on('error', (err) => ready && this.lost(err));
    client.on('end', () => ready && this.lost(new Error('listener connection ended')));
    try {
      await client.connect();
      for (const channel of this.subs.keys()) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      discard(client);
      throw err;
    }
    ready = true;
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
  }

  private dispatch(channel: string, payload: string): void {
    for (const s of this.subs.get(channel) ?? []) {
      try {
        s.onMessage(payload);
      } catch (err) {
        this.logger.error({ err, channel }, 'notification handler failed');
      }
    }
  }

  private lost(err: unknown): void {
    if (this.stopped || this.reconnectTimer) return;
    const dead = this.client;
    this.client = null;
    if (dead) discard(dead);
    if (this.lostAt === null) {
      this.lostAt = Date.now();
      this.db.unavailable();
      this.logger.warn({ cause: oneLine(err) }, 'listener connection lost; reconnecting');
    } else {
      this.logger.debug({ cause: oneLine(err) }, `listener reconnect failed; next attempt in ${this.retryMs} ms`);
    }
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect()
        .then(() => {
          this.logger.warn(
            { downMs: Date.now() - (this.lostAt ?? Date.now()) },
            'listener reconnected; notifications sent meanwhile are lost, caches cleared',
          );
          this.lostAt = null;
          this.db.available();
          for (const list of this.subs.values()) for (const s of list) s.onReset?.();
        })
        .catch((e) => {
          this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
          this.lost(e);
        });
    }, this.retryMs);
    this.reconnectTimer.unref();
  }
}

/** Closes a client given up on. It may still report an error: unheard, that would end the process. */
function discard(client: Client): void {
  client.removeAllListeners();
  client.on('error', () => undefined);
  client.end().catch(() => undefined);
}
