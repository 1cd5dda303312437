import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkDatabase, fail, settingsOrExit } from './boot';
import type { Settings } from './config/settings';
import { SettingsModule } from './config/settings.module';
import { DatabaseModule } from './db/database.module';
import { EventsModule } from './events/events.module';
import { GamesModule } from './games/games.module';
import { GamesService } from './games/games.service';
import { IdentityModule } from './identity/identity.module';

const USAGE = `Usage: npm run svc -- <command>

Commands:
  game:create "<name>"   create a game together with its first API key
  key:mint <gameId>      mint another API key for a game
  help                   this text

The database is DATABASE_URL, or the embedded one of a running \`npm start\`.`;

@Module({})
class CliModule {
  static forRoot(settings: Settings) {
    return { module: CliModule, imports: [SettingsModule.forRoot(settings), EventsModule, DatabaseModule, IdentityModule, GamesModule] };
  }
}

/** The operator command (SPEC §5 rule 4): games and keys without the HTTP surface. */
async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const env = { ...process.env };
  const urlFile = resolve(env.SVC_DATA_DIR || '.data', 'database-url');
  if (!env.DATABASE_URL && existsSync(urlFile)) env.DATABASE_URL = readFileSync(urlFile, 'utf8').trim();
  const settings = settingsOrExit(env);
  if (!settings.databaseUrl) fail('set DATABASE_URL, or run `npm start` so the embedded database is up');
  await checkDatabase(settings.databaseUrl);

  const ctx = await NestFactory.createApplicationContext(CliModule.forRoot(settings), { logger: ['error'] });
  try {
    const games = ctx.get(GamesService);
    switch (command) {
      case 'game:create': {
        const name = args.join(' ').trim();
        if (!name || name.length > 200) fail('game:create needs a name of 1-200 characters');
        const { game, key } = await games.createGameWithKey(name);
        process.stdout.write(`game ${game.id} "${game.name}"\nAPI key ${key.key}\n(the key is shown only now)\n`);
        break;
      }
      case 'key:mint': {
        const key = await games.mintKey(args[0] ?? '');
        process.stdout.write(`API key ${key.key}\n(the key is shown only now)\n`);
        break;
      }
      default:
        fail(`unknown command "${command}"\n${USAGE}`);
    }
  } finally {
    await ctx.close();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => fail((err as Error)?.message ?? String(err)));
