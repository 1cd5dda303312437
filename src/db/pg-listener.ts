import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { SETTINGS } from '../config/settings.module';
import type { Settings } from '../config/settings';

type Handler = (payload: string) => void;

interface Subscription {
  onMessage: Handler;
  /** Called after a reconnect: notifications sent while disconnected are lost. */
  onReset?: () => void;
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * One LISTEN connection per process, shared by every module that must hear about commits made by
 * other instances (cache invalidation, events). Notifications are sent inside the writing
 * transaction (`pg_notify`), so they arrive only if it commits.
 */
@Injectable()
export class PgListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PgListener.name);
  private readonly subs = new Map<string, Subscription[]>();
  private client: Client | null = null;
  private stopped = false;
  private retryMs = 250;
  private reconnectTimer: NodeJS.Timeout | null = null;

  constructor(@Inject(SETTINGS) private readonly settings: Settings) {}

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
    const client = new Client({ connectionString: this.settings.databaseUrl, application_name: 'guildhall-listener' });
    client.on('notification', (n) => this.dispatch(n.channel, n.payload ?? ''));
    client.on('error', (err) => this.lost(err));
    client.on('end', () => this.lost(new Error('listener connection ended')));
    try {
      await client.connect();
      for (const channel of this.subs.keys()) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      client.removeAllListeners();
      await client.end().catch(() => undefined);
      throw err;
    }
    this.client = client;
    this.retryMs = 250;
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
    dead?.removeAllListeners();
    dead?.end().catch(() => undefined);
    this.logger.warn({ err }, `listener connection lost; reconnecting in ${this.retryMs} ms`);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect()
        .then(() => {
          for (const list of this.subs.values()) for (const s of list) s.onReset?.();
        })
        .catch((e) => {
          this.retryMs = Math.min(this.retryMs * 2, 10_000);
          this.lost(e);
        });
    }, this.retryMs);
    this.reconnectTimer.unref();
  }
}
