/**
 * Server settings of SPEC §8, parsed and validated before anything starts.
 * `parseSettings` is pure: it never reads `process.env` itself, so it is unit-tested directly.
 */
export type NodeEnv = 'development' | 'test' | 'production';
export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'silent';

export interface Settings {
  /** Absent only for the development launcher, which supplies an embedded database. */
  databaseUrl: string | undefined;
  databasePoolMax: number;
  /** Longest a statement of this service may run (ms, 0 = no limit): a blocked or runaway query gives up. */
  databaseStatementTimeoutMs: number;
  /** Longest one of this service's transactions may sit idle (ms, 0 = no limit) before Postgres ends it and frees its locks. */
  databaseIdleInTransactionTimeoutMs: number;
  host: string;
  port: number;
  nodeEnv: NodeEnv;
  baseUrl: string | undefined;
  adminToken: string | undefined;
  rateLimitPerMinute: number;
  rateLimitBurst: number;
  trustProxy: boolean;
  webhookAllowPrivateHosts: boolean;
  /** Off on instances that should only serve requests; /healthz then reports the worker ok. */
  webhookWorkerEnabled: boolean;
  logLevel: LogLevel;
  maxPageSize: number;
  /** How long events stay readable on the feed and the streams' replay (EXTENSIONS X1). */
  eventRetentionDays: number;
  /** The Prometheus endpoint's own port (never the API's); undefined turns metrics off. */
  metricsPort: number | undefined;
}

/** One readable reason naming the setting; the launcher prints its message as a single line. */
export class SettingsError extends Error {
  constructor(
    readonly setting: string,
    reason: string,
  ) {
    super(`Invalid setting ${setting}: ${reason}`);
    this.name = 'SettingsError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const quote = (v: string) => JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);

function integer(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return def;
  const v = raw.trim();
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new SettingsError(name, `must be an integer from ${min} to ${max} (got ${quote(raw)})`);
  }
  return Number(v);
}

function oneOf<T extends string>(env: Env, name: string, def: T, allowed: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return def;
  const v = raw.trim() as T;
  if (!allowed.includes(v)) {
    throw new SettingsError(name, `must be one of ${allowed.join(', ')} (got ${quote(raw)})`);
  }
  return v;
}

function flag(env: Env, name: string, def = false): boolean {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return def;
  const v = raw.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new SettingsError(name, `must be true, false, 1 or 0 (got ${quote(raw)})`);
}

function databaseUrl(env: Env): string | undefined {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SettingsError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new SettingsError('DATABASE_URL', `must use the postgres:// or postgresql:// scheme (got ${url.protocol})`);
  }
  return raw.trim();
}

function baseUrl(env: Env): string | undefined {
  const raw = env.SVC_BASE_URL;
  if (raw === undefined || raw.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SettingsError('SVC_BASE_URL', `must be an absolute http or https URL (got ${quote(raw)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SettingsError('SVC_BASE_URL', `must be an absolute http or https URL (got ${quote(raw)})`);
  }
  return raw.trim().replace(/\/+$/, '');
}

export const ADMIN_TOKEN_PREFIX = 'jadm_';

function adminToken(env: Env): string | undefined {
  const raw = env.SVC_ADMIN_TOKEN;
  if (raw === undefined || raw.trim() === '') return undefined;
  // SPEC §5: admin tokens start with `jadm_`; a short one would be guessable.
  if (!raw.startsWith(ADMIN_TOKEN_PREFIX) || !/^jadm_[\x21-\x7e]{16,}$/.test(raw)) {
    throw new SettingsError(
      'SVC_ADMIN_TOKEN',
      'must start with "jadm_" followed by at least 16 printable characters without spaces',
    );
  }
  return raw;
}

/** Off unless set; never the API port, so /metrics is not reachable where the API is. */
function metricsPort(env: Env, apiPort: number): number | undefined {
  const raw = env.METRICS_PORT;
  if (raw === undefined || raw.trim() === '') return undefined;
  const port = integer(env, 'METRICS_PORT', 0, 1, 65535);
  if (port === apiPort) throw new SettingsError('METRICS_PORT', `must differ from PORT (both are ${port})`);
  return port;
}

export function parseSettings(env: Env): Settings {
  const port = integer(env, 'PORT', 8787, 1, 65535);
  return {
    databaseUrl: databaseUrl(env),
    databasePoolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 30_000, 0, 3_600_000),
    databaseIdleInTransactionTimeoutMs: integer(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 15_000, 0, 3_600_000),
    host: env.HOST?.trim() || '0.0.0.0',
    port,
    nodeEnv: oneOf(env, 'NODE_ENV', 'development', ['development', 'test', 'production'] as const),
    baseUrl: baseUrl(env),
    adminToken: adminToken(env),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 100_000_000),
    rateLimitBurst: integer(env, 'RATE_LIMIT_BURST', 100, 0, 100_000_000),
    trustProxy: flag(env, 'TRUST_PROXY'),
    webhookAllowPrivateHosts: flag(env, 'WEBHOOK_ALLOW_PRIVATE_HOSTS'),
    webhookWorkerEnabled: flag(env, 'WEBHOOK_WORKER_ENABLED', true),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['error', 'warn', 'info', 'debug', 'silent'] as const),
    maxPageSize: integer(env, 'SVC_MAX_PAGE_SIZE', 100, 1, 100_000),
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS', 7, 1, 365),
    metricsPort: metricsPort(env, port),
  };
}
