import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { createApp } from './app.factory';
import { parseSettings, SettingsError, type Settings } from './config/settings';

/** Prints one readable line and exits non-zero: what an operator sees when start-up is refused. */
export function fail(message: string): never {
  process.stderr.write(`guildhall: ${message}\n`);
  process.exit(1);
}

/** Settings from the environment, or exit with the one line naming the bad setting. */
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
    fail(`cannot reach the database at ${describeDatabase(url)}: ${(err as Error).message || String(err)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Connects, migrates and listens. Resolves with the running app and its base URL. */
export async function startServer(settings: Settings): Promise<{ app: NestFastifyApplication; url: string }> {
  if (!settings.databaseUrl) fail('Invalid setting DATABASE_URL: required (a postgres:// URL)');
  await checkDatabase(settings.databaseUrl);
  const app = await createApp(settings);
  await app.listen({ port: settings.port, host: settings.host });
  const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  return { app, url: settings.baseUrl ?? `http://${host}:${settings.port}` };
}
