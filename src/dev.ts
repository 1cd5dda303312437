import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fail, settingsOrExit, startServer } from './boot';
import { ensureDatabase, startEmbeddedPostgres } from './db/embedded-postgres';
import { GamesService } from './games/games.service';

/**
 * `npm start`: the newcomer's server. Without DATABASE_URL it runs an embedded PostgreSQL whose
 * data lives in ./.data (kept across restarts); on first run it generates the admin token and a
 * demo game with an API key, all kept in ./.data, and prints how to call the service.
 */
async function main(): Promise<void> {
  const env = { ...process.env };
  const dataDir = resolve(env.SVC_DATA_DIR || '.data');
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  settingsOrExit(env);

  const urlFile = join(dataDir, 'database-url');
  if (!env.DATABASE_URL) {
    process.stdout.write('Starting the embedded PostgreSQL (data in .data/pg)...\n');
    const pg = await startEmbeddedPostgres({ dataDir });
    env.DATABASE_URL = await ensureDatabase(pg.url, 'guildhall');
    // The operator command (`npm run svc`) finds the running database here.
    writeFileSync(urlFile, env.DATABASE_URL, { mode: 0o600 });
    process.once('exit', () => rmSync(urlFile, { force: true }));
  }
  env.SVC_ADMIN_TOKEN ||= persisted(join(dataDir, 'admin-token'), () => `jadm_${randomBytes(24).toString('base64url')}`);
  env.NODE_ENV ||= 'development';

  const settings = settingsOrExit(env);
  const { app, url } = await startServer(settings);

  const demoFile = join(dataDir, 'demo.json');
  if (!existsSync(demoFile)) {
    const { game, key } = await app.get(GamesService).createGameWithKey('Demo game');
    writeFileSync(demoFile, JSON.stringify({ gameId: game.id, apiKey: key.key }, null, 2), { mode: 0o600 });
  }
  const demo = JSON.parse(readFileSync(demoFile, 'utf8')) as { gameId: string; apiKey: string };

  process.stdout.write(
    [
      '',
      `Guildhall is listening on ${url}`,
      `  admin token  ${settings.adminToken}`,
      `  demo game    ${demo.gameId}`,
      `  API key      ${demo.apiKey}`,
      `  API docs     ${url}/docs`,
      '(kept in .data/; delete that folder to start from scratch)',
      '',
      'Try it:',
      `  curl -s -H "Authorization: Bearer ${demo.apiKey}" ${url}/v1/whoami`,
      '',
    ].join('\n'),
  );
}

/** Reads a secret kept in the data folder, creating it on first use. */
function persisted(file: string, make: () => string): string {
  if (!existsSync(file)) writeFileSync(file, make(), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

main().catch((err: unknown) => fail(`start-up failed: ${(err as Error)?.message ?? String(err)}`));
