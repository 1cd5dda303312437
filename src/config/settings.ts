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
  /** Apply pending migrations when the server starts (docs/upgrades.md says when to turn it off). */
  migrateOnBoot: boolean;
  /** Expensive reads (search, feed pages, replays, exports) one game may run at once on an instance (docs/security.md). */
  gameReadConcurrency: number;
  /** Writes that may share one transaction, and their first statement, while they wait for one (16 by default; 1 is off; docs/operations.md). */
  writeBatchMax: number;
  /** Transactions at once that serve those writes on an instance (at most DATABASE_POOL_MAX). */
  writeBatchLanes: number;
  /** Longest a statement of this service may run (ms, 0 = no limit): a blocked or runaway query gives up. */
  databaseStatementTimeoutMs: number;
  /** Longest one of this service's transactions may sit idle (ms, 0 = no limit) before Postgres ends it and frees its locks. */
  databaseIdleInTransactionTimeoutMs: number;
  /** A streaming replica for the lag-tolerant reads (docs/read-replicas.md); undefined, the default, reads all from DATABASE_URL. */
  databaseReadUrl: string | undefined;
  /** The most a replica may be behind (ms) for a read without a consistency token to go to it. */
  readReplicaMaxLagMs: number;
  /** How long a read with a consistency token waits for the replica to replay it before going to the primary (ms). */
  readReplicaWaitMs: number;
  host: string;
  port: number;
  nodeEnv: NodeEnv;
  baseUrl: string | undefined;
  adminToken: string | undefined;
  /** The root token being rotated out, accepted beside adminToken until it is unset. */
  adminTokenPrevious: string | undefined;
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
  /** How long a player's notifications are kept (EXTENSIONS X9); the sweeper removes older ones. */
  notificationRetentionDays: number;
  /** OpenTelemetry traces (docs/observability.md, Traces); undefined, the default, is off. */
  tracing: TracingSettings | undefined;
  /** The Prometheus endpoint's own port (never the API's); undefined turns metrics off. */
  metricsPort: number | undefined;
}

/** The samplers of the OpenTelemetry specification that need no other component. */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

export interface TracingSettings {
  /** Where spans are POSTed as OTLP/HTTP JSON: the traces endpoint, or the base endpoint + /v1/traces. */
  tracesUrl: string;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, decoded; service.name is serviceName. */
  resourceAttributes: Record<string, string>;
  sampler: TraceSampler;
  /** The ratio of the traceidratio samplers (0-1); 1 for the others. */
  samplerRatio: number;
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

function databaseUrl(env: Env, name: 'DATABASE_URL' | 'DATABASE_READ_URL' = 'DATABASE_URL'): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SettingsError(name, 'must be a postgres:// or postgresql:// URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new SettingsError(name, `must use the postgres:// or postgresql:// scheme (got ${url.protocol})`);
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

function adminToken(env: Env, name: 'SVC_ADMIN_TOKEN' | 'SVC_ADMIN_TOKEN_PREVIOUS' = 'SVC_ADMIN_TOKEN'): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  // SPEC §5: admin tokens start with `jadm_`; a short one would be guessable.
  if (!raw.startsWith(ADMIN_TOKEN_PREFIX) || !/^jadm_[\x21-\x7e]{16,}$/.test(raw)) {
    throw new SettingsError(name, 'must start with "jadm_" followed by at least 16 printable characters without spaces');
  }
  return raw;
}

/** The previous root token of a rotation: meaningful only beside a current one, and never the same. */
function adminTokenPrevious(env: Env, current: string | undefined): string | undefined {
  const previous = adminToken(env, 'SVC_ADMIN_TOKEN_PREVIOUS');
  if (previous === undefined) return undefined;
  if (current === undefined) throw new SettingsError('SVC_ADMIN_TOKEN_PREVIOUS', 'is set without SVC_ADMIN_TOKEN: set the new token there');
  if (previous === current) throw new SettingsError('SVC_ADMIN_TOKEN_PREVIOUS', 'equals SVC_ADMIN_TOKEN: unset it, or set the new token in SVC_ADMIN_TOKEN');
  return previous;
}

function otlpUrl(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SettingsError(name, `must be an absolute http or https URL (got ${quote(raw)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SettingsError(name, `must be an absolute http or https URL (got ${quote(raw)})`);
  }
  return url.toString();
}

/** `key=value,key=value`, values percent-encoded (the OpenTelemetry specification's format). */
function resourceAttributes(env: Env): Record<string, string> {
  const raw = env.OTEL_RESOURCE_ATTRIBUTES;
  const attributes: Record<string, string> = {};
  if (raw === undefined || raw.trim() === '') return attributes;
  for (const pair of raw.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const key = at > 0 ? pair.slice(0, at).trim() : '';
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      value = '';
    }
    if (!key || at < 0 || !/^[\x21-\x7e]+$/.test(key)) {
      throw new SettingsError('OTEL_RESOURCE_ATTRIBUTES', `must be key=value pairs separated by commas (got ${quote(raw)})`);
    }
    attributes[key] = value;
  }
  return attributes;
}

function ratio(env: Env, name: string): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return 1;
  const v = raw.trim();
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(v) || Number(v) > 1) {
    throw new SettingsError(name, `must be a number from 0 to 1 (got ${quote(raw)})`);
  }
  return Number(v);
}

/**
 * Traces are on when an OTLP endpoint is set (the standard OTEL_* variables); their other settings
 * are read only then, so variables set for other programs of the host stop nothing while traces are off.
 */
function tracing(env: Env): TracingSettings | undefined {
  if (flag(env, 'OTEL_SDK_DISABLED')) return undefined;
  const tracesEndpoint = otlpUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = otlpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!tracesEndpoint && !endpoint) return undefined;
  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[protocolName]?.trim();
  if (protocol && protocol !== 'http/json') {
    throw new SettingsError(protocolName, `must be http/json, the only protocol Guildhall sends (got ${quote(protocol)})`);
  }
  const sampler = oneOf(env, 'OTEL_TRACES_SAMPLER', 'parentbased_always_on', TRACE_SAMPLERS);
  return {
    // As the specification says: the signal's endpoint is used as given, the base one gets /v1/traces.
    tracesUrl: tracesEndpoint ?? `${endpoint!.replace(/\/+$/, '')}/v1/traces`,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'guildhall',
    resourceAttributes: resourceAttributes(env),
    sampler,
    samplerRatio: sampler.endsWith('traceidratio') ? ratio(env, 'OTEL_TRACES_SAMPLER_ARG') : 1,
  };
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
  const poolMax = integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000);
  return {
    databaseUrl: databaseUrl(env),
    databasePoolMax: poolMax,
    migrateOnBoot: flag(env, 'MIGRATE_ON_BOOT', true),
    writeBatchMax: integer(env, 'WRITE_BATCH_MAX', 16, 1, 64),
    writeBatchLanes: integer(env, 'WRITE_BATCH_LANES', Math.min(2, poolMax), 1, poolMax),
    gameReadConcurrency: integer(env, 'GAME_READ_CONCURRENCY', Math.max(1, Math.floor(poolMax / 2)), 1, 1000),
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 30_000, 0, 3_600_000),
    databaseIdleInTransactionTimeoutMs: integer(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 15_000, 0, 3_600_000),
    databaseReadUrl: databaseUrl(env, 'DATABASE_READ_URL'),
    readReplicaMaxLagMs: integer(env, 'READ_REPLICA_MAX_LAG_MS', 1_000, 0, 3_600_000),
    readReplicaWaitMs: integer(env, 'READ_REPLICA_WAIT_MS', 250, 0, 10_000),
    host: env.HOST?.trim() || '0.0.0.0',
    port,
    nodeEnv: oneOf(env, 'NODE_ENV', 'development', ['development', 'test', 'production'] as const),
    baseUrl: baseUrl(env),
    adminToken: adminToken(env),
    adminTokenPrevious: adminTokenPrevious(env, adminToken(env)),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 100_000_000),
    rateLimitBurst: integer(env, 'RATE_LIMIT_BURST', 100, 0, 100_000_000),
    trustProxy: flag(env, 'TRUST_PROXY'),
    webhookAllowPrivateHosts: flag(env, 'WEBHOOK_ALLOW_PRIVATE_HOSTS'),
    webhookWorkerEnabled: flag(env, 'WEBHOOK_WORKER_ENABLED', true),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['error', 'warn', 'info', 'debug', 'silent'] as const),
    maxPageSize: integer(env, 'SVC_MAX_PAGE_SIZE', 100, 1, 100_000),
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS', 7, 1, 365),
    notificationRetentionDays: integer(env, 'NOTIFICATION_RETENTION_DAYS', 30, 1, 365),
    tracing: tracing(env),
    metricsPort: metricsPort(env, port),
  };
}
