import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServer as createNetServer } from 'node:net';
import { Client } from 'pg';
import { createApp } from './app.factory';
import { Logger } from '@nestjs/common';
import { createDataSource, requireMigratedSchema, runMigrations, SchemaIncompatible } from './db/data-source';
import { RELEASE } from './version';
import { currentEra, newEraMessage } from './db/feed-era';
import { StartupError } from './common/startup-error';
import { parseSettings, SettingsError, type Settings } from './config/settings';
import { bootLine } from './boot-line';
import { stopOnSignals, type StopOptions } from './graceful-stop';

/**
 * Settles the schema before the app is built: applies pending migrations (MIGRATE_ON_BOOT, the
 * default) or requires that there are none, and refuses a database migrated by a newer release
 * this build may not run beside. A refusal is one line, not the framework's report with its stack.
 * Answers the migrations it applied and the feed era new events get.
 */
async function settleSchema(settings: Settings, url: string): Promise<{ applied: string[]; era: number }> {
  // Before the app's logger exists: said on stderr, like the refusals below.
  const onNewEra = (era: number) => bootLine(settings.nodeEnv === 'production', 'warn', 'FeedEra', newEraMessage(era));
  const ds = createDataSource({ url, poolMax: 2, applicationName: 'guildhall-migrate', onNewEra });
  try {
    await ds.initialize();
    let applied: string[] = [];
    if (settings.migrateOnBoot) applied = await runMigrations(ds, onNewEra);
    else await requireMigratedSchema(ds);
    return { applied, era: await currentEra(ds) };
  } catch (err) {
    if (err instanceof SchemaIncompatible) throw new StartupError(err.message);
    const e = err as Error & { code?: string; driverError?: { code?: string } };
    const code = e.code ?? e.driverError?.code;
    const fix =
      code === '42501'
        ? 'give the DATABASE_URL user the right to create tables in that database (or use one it owns)'
        : 'check that DATABASE_URL names a PostgreSQL 15+ database this service may own';
    throw new StartupError(`the schema migration failed on ${describeDatabase(url)} (${e.message}): ${fix}`);
  } finally {
    if (ds.isInitialized) await ds.destroy().catch(() => undefined);
  }
}

/** Refuses a taken port before the app is built (the bind in `listen` still decides a race). */
async function portAvailable(settings: Settings): Promise<void> {
  await probePort(settings.port, settings.host).catch((err) => {
    throw listenFailure(err as NodeJS.ErrnoException, settings);
  });
  if (settings.metricsPort === undefined) return;
  await probePort(settings.metricsPort, settings.host).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE') throw err;
    throw new StartupError(
      `METRICS_PORT ${settings.metricsPort} is already in use on ${settings.host}: stop the other process, or set METRICS_PORT to a free port`,
    );
  });
}

function probePort(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** Why the port could not be bound, and what to do about it. */
function listenFailure(err: NodeJS.ErrnoException, { port, host }: Settings): Error {
  if (err.code === 'EADDRINUSE') {
    return new StartupError(`port ${port} is already in use on ${host}: stop the other process, or set PORT to a free port`);
  }
  if (err.code === 'EACCES') {
    return new StartupError(`not allowed to listen on port ${port}: set PORT to a port above 1023, or run with the right to bind it`);
  }
  if (err.code === 'EADDRNOTAVAIL') {
    return new StartupError(`cannot listen on ${host}: it is not an address of this machine; set HOST (e.g. 127.0.0.1 or 0.0.0.0)`);
  }
  return err;
}

/** Prints one readable line and exits non-zero: what the operator command says when it is refused. */
export function fail(message: string): never {
  process.stderr.write(`guildhall: ${message}\n`);
  process.exit(1);
}

/** Settings from the environment, or exit with the one line naming the bad setting (the operator command). */
export function settingsOrExit(env: NodeJS.ProcessEnv = process.env): Settings {
  try {
    return parseSettings(env);
  } catch (err) {
    if (err instanceof SettingsError) fail(err.message);
    throw err;
  }
}

/** Where a database URL points, without its password. */
export function describeDatabase(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'the configured database';
  }
}

/** Fails fast, with one line, when the database cannot be reached. */
export async function checkDatabase(url: string, timeoutMs = 5_000): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new StartupError(
      `cannot reach the database at ${describeDatabase(url)} (${(err as Error).message || String(err)}): ` +
        'start it, or correct DATABASE_URL',
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Connects, migrates and listens, and stops on SIGTERM or SIGINT (`stop` adds what the launcher
 * needs then). Resolves with the running app, its base URL and, with METRICS_PORT, its metrics address.
 */
export async function startServer(
  settings: Settings,
  stop: StopOptions = {},
): Promise<{ app: NestFastifyApplication; url: string; metricsUrl?: string }> {
  if (!settings.databaseUrl) throw new StartupError('Invalid setting DATABASE_URL: required (a postgres:// URL)');
  await checkDatabase(settings.databaseUrl);
  const { applied, era } = await settleSchema(settings, settings.databaseUrl);
  await portAvailable(settings);
  const app = await createApp(settings);
  stopOnSignals(app, stop);
  try {
    await app.listen({ port: settings.port, host: settings.host });
  } catch (err) {
    await app.close().catch(() => undefined);
    throw listenFailure(err as NodeJS.ErrnoException, settings);
  }
  const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  const metricsUrl = settings.metricsPort === undefined ? undefined : `http://${host}:${settings.metricsPort}/metrics`;
  const url = settings.baseUrl ?? `http://${host}:${settings.port}`;
  const listen = `${settings.host}:${settings.port}`;
  const metrics = settings.metricsPort === undefined ? null : `${settings.host}:${settings.metricsPort}`;
  new Logger('Guildhall').log(
    { release: RELEASE, listen, metrics, migrationsApplied: applied, era },
    `Guildhall ${RELEASE} is listening on ${listen}; metrics ${metrics ? `on ${metrics}` : 'off'}; ` +
      (applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'no migration applied') +
      `; feed era ${era}`,
  );
  return { app, url, ...(metricsUrl ? { metricsUrl } : {}) };
}
