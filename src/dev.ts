import './heap-tuning'; // first: before any of the app's code has run
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { join, relative, resolve } from 'node:path';
import { startServer } from './boot';
import { failStartup } from './boot-line';
import { parseSettings } from './config/settings';
import { ensureDatabase, freePort, startEmbeddedPostgres, writableFolder, type EmbeddedPostgres } from './db/embedded-postgres';
import { GamesService } from './games/games.service';

/**
 * `npm start`: the newcomer's server. Without DATABASE_URL it runs an embedded PostgreSQL whose
 * data lives in ./.data (kept across restarts); on first run it generates the admin token and a
 * demo game with an API key, all kept in ./.data, and prints how to call the service.
 */
async function main(): Promise<void> {
  const env = { ...process.env };
  const dataDir = resolve(env.SVC_DATA_DIR || '.data');
  parseSettings(env);
  writableFolder(dataDir);

  const urlFile = join(dataDir, 'database-url');
  let pg: EmbeddedPostgres | undefined;
  if (!env.DATABASE_URL) {
    process.stdout.write(`Starting the embedded PostgreSQL (data in ${shown(dataDir)}/)...\n`);
    pg = await startEmbeddedPostgres({ dataDir });
    if (!pg.clusterDir.startsWith(dataDir)) process.stdout.write(`  (its cluster lives in ${pg.clusterDir}, where the postgres account can reach it)\n`);
    env.DATABASE_URL = await ensureDatabase(pg.url, 'guildhall');
    // The operator command (`npm run svc`) finds the running database here.
    writeFileSync(urlFile, env.DATABASE_URL, { mode: 0o600 });
    process.once('exit', () => rmSync(urlFile, { force: true }));
  }
  env.SVC_ADMIN_TOKEN ||= persisted(join(dataDir, 'admin-token'), () => `jadm_${randomBytes(24).toString('base64url')}`);
  env.NODE_ENV ||= 'development';
  // Metrics on, on their own port: the one after PORT when it is free, else any free one.
  env.METRICS_PORT ||= String(await metricsPortFor(parseSettings(env)));

  const settings = parseSettings(env);
  // The server drains and closes first, then the embedded database stops.
  const { app, url, metricsUrl } = await startServer(settings, {
    onSignal: (signal) => process.stdout.write(`\n${signal}: stopping...\n`),
    alsoStop: async () => pg?.stop(),
  });

  const demo = await demoGame(app.get(GamesService), join(dataDir, 'demo.json'));

  process.stdout.write(
    [
      '',
      `Guildhall is listening on ${url}`,
      `  admin token  ${settings.adminToken}`,
      `  demo game    ${demo.gameId}`,
      `  API key      ${demo.apiKey}`,
      `  API docs     ${url}/docs`,
      `  console      ${url}/console/  (sign in with the admin token)`,
      `  metrics      ${metricsUrl}  (Prometheus; see docs/observability.md)`,
      `(kept in ${shown(dataDir)}/; delete that folder to start from scratch)`,
      '',
      'Try it:',
      `  curl -s -H "Authorization: Bearer ${demo.apiKey}" ${url}/v1/whoami`,
      '',
    ].join('\n'),
  );
}

/** The port after PORT when nothing listens there, else one the system picks. */
async function metricsPortFor({ port, host }: { port: number; host: string }): Promise<number> {
  const next = port + 1;
  if (next <= 65535 && (await isFree(next, host))) return next;
  return freePort();
}

function isFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** A path as the user would type it: relative to where they are when it is inside. */
function shown(dir: string): string {
  const rel = relative(process.cwd(), dir);
  return rel && !rel.startsWith('..') ? rel : dir;
}

/**
 * The demo game and its key, kept in the data folder; made again when the database in use does not
 * hold that game (a fresh or different DATABASE_URL), so the printed key always works.
 */
async function demoGame(games: GamesService, file: string): Promise<{ gameId: string; apiKey: string }> {
  const kept = readJson<{ gameId: string; apiKey: string }>(file);
  if (kept && typeof kept.gameId === 'string' && (await games.exists(kept.gameId))) return kept;
  const { game, key } = await games.createGameWithKey('Demo game');
  const demo = { gameId: game.id, apiKey: key.key };
  writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

/** A JSON file of the data folder; a missing or damaged one reads as absent and is made again. */
function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Reads a secret kept in the data folder, creating it on first use (or when it was emptied). */
function persisted(file: string, make: () => string): string {
  const kept = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (kept) return kept;
  const made = make();
  writeFileSync(file, made, { mode: 0o600 });
  return made;
}

main().catch(failStartup);
