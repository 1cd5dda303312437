import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
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

  const demo = await demoGame(app.get(GamesService), join(dataDir, 'demo.json'));

  process.stdout.write(
    [
      '',
      `Guildhall is listening on ${url}`,
      `  admin token  ${settings.adminToken}`,
      `  demo game    ${demo.gameId}`,
      `  API key      ${demo.apiKey}`,
      `  API docs     ${url}/docs`,
      `(kept in ${relative(process.cwd(), dataDir) || '.'}/; delete that folder to start from scratch)`,
      '',
      'Try it:',
      `  curl -s -H "Authorization: Bearer ${demo.apiKey}" ${url}/v1/whoami`,
      '',
    ].join('\n'),
  );
}

/**
 * The demo game and its key, kept in the data folder; made again when the database in use does not
 * hold that game (a fresh or different DATABASE_URL), so the printed key always works.
 */
async function demoGame(games: GamesService, file: string): Promise<{ gameId: string; apiKey: string }> {
  if (existsSync(file)) {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { gameId: string; apiKey: string };
    if (await games.exists(kept.gameId)) return kept;
  }
  const { game, key } = await games.createGameWithKey('Demo game');
  const demo = { gameId: game.id, apiKey: key.key };
  writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

/** Reads a secret kept in the data folder, creating it on first use. */
function persisted(file: string, make: () => string): string {
  if (!existsSync(file)) writeFileSync(file, make(), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

main().catch((err: unknown) => fail(`start-up failed: ${(err as Error)?.message ?? String(err)}`));
