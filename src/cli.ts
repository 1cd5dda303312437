import { BulkheadModule } from './common/bulkhead/game-reads';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkDatabase, fail, settingsOrExit } from './boot';
import { StartupError } from './common/startup-error';
import type { Settings } from './config/settings';
import { SettingsModule } from './config/settings.module';
import { TracingModule } from './observability/tracing/tracing.module';
import { DatabaseModule } from './db/database.module';
import { EventsModule } from './events/events.module';
import { GamesModule } from './games/games.module';
import { GamesService } from './games/games.service';
import { ErasuresModule } from './erasures/erasures.module';
import { ErasureLedgerService } from './erasures/erasure-ledger.service';
import { LedgerModule } from './ledger/ledger.module';
import { LedgerService } from './ledger/ledger.service';
import { PermissionsCoreModule } from './permissions/permissions-core.module';
import { IdentityModule } from './identity/identity.module';
import { MetricsModule } from './observability/metrics/metrics.module';
import { parseOperatorArgs, USAGE, UsageError } from './operator/operator-args';
import { runOperatorCommand } from './operator/operator-commands';
import { cliOperator } from './operator/cli-operator';
import { runMigrateCommand, type MigrateCommand } from './operator/migrate-commands';
import { createDataSource, SchemaIncompatible } from './db/data-source';

@Module({})
class CliModule {
  static forRoot(settings: Settings) {
    // It never migrates: a newer command pointed at a database must not change its schema unasked
    // (`migrate up` does that); on pending migrations it refuses to run. The modules register
    // their metrics; the command serves none, whatever METRICS_PORT says (in the
    // Docker image it is set for the server, whose port the command must not try to take). Nor does
    // it trace: it answers no request.
    const own = { ...settings, metricsPort: undefined, tracing: undefined, migrateOnBoot: false };
    return {
      module: CliModule,
      imports: [
        SettingsModule.forRoot(own),
        TracingModule.forRoot(own),
        MetricsModule,
        EventsModule,
        DatabaseModule,
        BulkheadModule,
        IdentityModule,
        GamesModule,
        PermissionsCoreModule,
        ErasuresModule,
        LedgerModule,
      ],
    };
  }
}

/**
 * The operator command (SPEC §5 rule 4): games, keys and the ledger of removed access without the HTTP surface. It runs from
 * dist/ and never builds, since a build deletes dist/ under a running server (bin/guildhall.js).
 */
async function main(argv: string[]): Promise<void> {
  const command = parseOperatorArgs(argv);
  if (command.name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const env = { ...process.env };
  const urlFile = resolve(env.SVC_DATA_DIR || '.data', 'database-url');
  if (!env.DATABASE_URL && existsSync(urlFile)) env.DATABASE_URL = readFileSync(urlFile, 'utf8').trim();
  const settings = settingsOrExit(env);
  if (!settings.databaseUrl) fail('set DATABASE_URL, or run `npm start` so the embedded database is up');
  await checkDatabase(settings.databaseUrl);
  if (command.name === 'migrate:status' || command.name === 'migrate:up' || command.name === 'migrate:down') {
    process.stdout.write(`${await migrate(settings.databaseUrl, command)}\n`);
    return;
  }

  // A failure while the context starts (migrations, a timeout) must reach the one-line report below,
  // not the framework's logged stack and exit.
  const ctx = await NestFactory.createApplicationContext(CliModule.forRoot(settings), { logger: false, abortOnError: false });
  try {
    const context = {
      games: ctx.get(GamesService),
      erasures: ctx.get(ErasureLedgerService),
      ledger: ctx.get(LedgerService),
      by: cliOperator(),
      // npm runs a script in the package's folder and passes the operator's own as INIT_CWD.
      cwd: process.env.INIT_CWD || process.cwd(),
    };
    process.stdout.write(`${await runOperatorCommand(context, command)}\n`);
  } finally {
    await ctx.close();
  }
}

/** The migrate commands use a plain connection: no module starts, so none can refuse a schema they are there to change. */
async function migrate(url: string, command: MigrateCommand): Promise<string> {
  const ds = createDataSource({ url, poolMax: 2, applicationName: 'guildhall-migrate' });
  try {
    await ds.initialize();
    return await runMigrateCommand(ds, command);
  } finally {
    if (ds.isInitialized) await ds.destroy().catch(() => undefined);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError || err instanceof SchemaIncompatible || err instanceof StartupError) fail(err.message);
  const message = (err as Error)?.message || String(err);
  fail(`the command failed: ${message.split('\n')[0]}`);
});
