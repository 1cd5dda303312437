import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { blockingMigrations, incompatibility, readSchemaState } from './schema-state';

/** How often a running instance looks for a migration of a newer release it may not run beside. */
export const SCHEMA_CHECK_MS = 10_000;

/**
 * Watches the schema under a running instance. A newer release may apply a contract migration
 * while this one still serves (an upgrade run out of order, a rollback gone wrong): this instance's
 * writes could then fail on a column it does not know, as 500s. Once such a migration appears,
 * `/healthz` answers 503 with the reason and every write is refused with 503 and Retry-After, so
 * the load balancer and the clients go to instances of the newer release. Reads go on: they fail,
 * if at all, one by one.
 */
@Injectable()
export class SchemaWatch implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SchemaWatch.name);
  private timer?: NodeJS.Timeout;
  private reason: string | null = null;

  constructor(private readonly ds: DataSource) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.check(), SCHEMA_CHECK_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Why this instance may no longer write, or null. */
  get incompatible(): string | null {
    return this.reason;
  }

  /** The 503 a write gets once the schema is a newer release's; null while it may write. */
  writeRefusal(): ApiError | null {
    if (this.reason === null) return null;
    return new ApiError('service_unavailable', `this instance's release can no longer write to the database: ${this.reason}`, { 'retry-after': '10' });
  }

  /** One look at the schema; a failure to read it (the database away) changes nothing. */
  async check(): Promise<void> {
    try {
      const blocking = blockingMigrations(await readSchemaState(this.ds.manager));
      const reason = blocking.length ? incompatibility(blocking) : null;
      if (reason !== null && this.reason === null) this.logger.error({ reason }, 'a newer release migrated the schema beyond what this release may run on: refusing writes');
      if (reason === null && this.reason !== null) this.logger.log('the schema is one this release may run on again: taking writes');
      this.reason = reason;
    } catch {
      // The database is unreachable: the requests and /healthz say so already.
    }
  }
}
