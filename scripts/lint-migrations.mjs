#!/usr/bin/env node
/**
 * `npm run lint:migrations`: every migration's SQL, as the migrations really send it, through
 * squawk (the PostgreSQL migration linter, npm package squawk-cli).
 *
 * The SQL is not copied out of the sources by hand or by pattern: the migrations are run, up and
 * then down, by TypeORM's own MigrationExecutor as the service runs them (transaction mode 'each',
 * the downs as `migrate down` runs them, the migrations table of the service) on a scratch
 * database, through a query runner that records each statement with the migration that sent it.
 * Catalog reads a migration makes to decide what to do are recorded too. The server is
 * DATABASE_URL's, else the one on 127.0.0.1:5432 (user postgres), else a throwaway embedded cluster
 * as the test suite starts one; the scratch database is dropped at the end.
 *
 * Squawk reads one file per migration and direction, the statements in the order they were sent,
 * the transaction TypeORM wraps a migration in included. The timeouts are judged apart: squawk keeps
 * a `SET lock_timeout` in force to the end of a file and knows no RESET or SET LOCAL, nor that a
 * COMMIT ends the latter, whereas the migrations set the timeouts for the one statement or short
 * transaction that needs them (migrations/online.ts). So squawk also reads each statement alone, and
 * its require-lock-timeout and require-statement-timeout findings stand for the statements that ran
 * with that timeout at 0, as read from the server just before each one.
 *
 * Accepted exceptions are in migrations/lint-exceptions.ts, each with its reason. Fails (exit 1) on
 * any finding no exception covers, and on any exception that covers nothing any more. Exit 2: the
 * lint itself could not run.
 *
 * Options: --keep keeps the files squawk read (the captured SQL, per migration and per statement)
 * in a temporary folder, and names it.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const keep = process.argv.includes('--keep');

/**
 * The oldest PostgreSQL the service supports (docs/getting-started.md): squawk judges each
 * statement by what that version does (a constant default rewrites nothing since 11, a validated
 * CHECK spares SET NOT NULL its scan since 12).
 */
const PG_VERSION = '15';
/** The statements that set a timeout squawk would otherwise trust to the end of the file. */
const TIMEOUT_SETTING = /^\s*(SET\s+(SESSION\s+|LOCAL\s+)?|RESET\s+)(lock_timeout|statement_timeout)\b/i;
const TIMEOUT_RULES = { 'require-lock-timeout': 'lock_timeout', 'require-statement-timeout': 'statement_timeout' };

function fail(message) {
  process.stderr.write(`lint:migrations: ${message}\n`);
  process.exit(2);
}

/** The TypeScript sources load as the test suite loads them: @swc/core with the project's .swcrc. */
function loadTypeScript() {
  const swc = require('@swc/core');
  Module._extensions['.ts'] = (module, filename) => {
    const { code } = swc.transformSync(readFileSync(filename, 'utf8'), { filename, swcrc: true, sourceMaps: false });
    module._compile(code, filename);
  };
}

async function reachable(url) {
  const { Client } = require('pg');
  const c = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    await c.end().catch(() => undefined);
    return false;
  }
}

/** A server to make the scratch database on, and how to let it go. */
async function server() {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const local = 'postgres://postgres@127.0.0.1:5432/postgres';
  if (await reachable(local)) return { url: local, stop: async () => undefined };
  const { startEmbeddedPostgres } = require(join(root, 'src/db/embedded-postgres.ts'));
  const dir = mkdtempSync(join(tmpdir(), 'guildhall-lint-'));
  chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: dir, ephemeral: true });
  return {
    url: pg.url,
    stop: async () => {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function databaseUrl(serverUrl, database) {
  const u = new URL(serverUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * Runs every migration up, then every one down (last first), recording what each sends. Returns
 * one capture per migration and direction: { migration, direction, inTransaction, statements },
 * each statement { sql, settings: { lock_timeout, statement_timeout } } (ms, as in force then).
 */
async function capture(url) {
  const { DataSource, MigrationExecutor } = require('typeorm');
  const { MIGRATIONS } = require(join(root, 'migrations/index.ts'));
  const { downsInTransaction } = require(join(root, 'migrations/release.ts'));
  // As src/db/data-source.ts configures it for the migrations; no entities are needed to run them.
  const ds = new DataSource({
    type: 'postgres',
    url,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
  });
  await ds.initialize();
  const captures = [];
  let current;
  const runner = ds.createQueryRunner();
  const send = runner.query.bind(runner);
  const settings = async () => {
    const [row] = await send(
      `SELECT (SELECT setting::int FROM pg_settings WHERE name = 'lock_timeout') AS lock_timeout,
              (SELECT setting::int FROM pg_settings WHERE name = 'statement_timeout') AS statement_timeout`,
    );
    return row;
  };
  runner.query = async (sql, params, structured) => {
    if (current) {
      const timeouts = TIMEOUT_SETTING.test(sql) ? null : await settings();
      current.statements.push({ sql, settings: timeouts, inTransaction: runner.isTransactionActive });
    }
    return send(sql, params, structured);
  };
  for (const migration of ds.migrations) {
    for (const direction of ['up', 'down']) {
      const run = migration[direction].bind(migration);
      migration[direction] = async (q) => {
        if (q !== runner) throw new Error(`${migration.name} ${direction} was not given the recording query runner`);
        current = { migration: migration.name, direction, inTransaction: q.isTransactionActive, statements: [] };
        captures.push(current);
        try {
          return await run(q);
        } finally {
          current = undefined;
        }
      };
    }
  }
  try {
    await runner.connect();
    const executor = new MigrationExecutor(ds, runner);
    executor.transaction = 'each';
    const applied = await executor.executePendingMigrations();
    if (applied.length !== ds.migrations.length) throw new Error(`applied ${applied.length} of ${ds.migrations.length} migrations`);
    // As `guildhall migrate down` runs them (undoLastMigration), newest first: each down in a
    // transaction of its own, or in none where its migration runs outside one (downsInTransaction).
    for (const migration of [...ds.migrations].reverse()) {
      executor.transaction = downsInTransaction(migration) ? 'each' : 'none';
      await executor.undoLastMigration();
    }
  } finally {
    await runner.release();
    await ds.destroy();
  }
  return captures;
}

/**
 * The file squawk reads for one capture, and which statement each of its lines belongs to (-1: the
 * transaction TypeORM wrapped the migration in, sent before and after it). Without the timeout
 * settings, which are judged statement by statement.
 */
function migrationFile({ statements, inTransaction }) {
  const lines = [];
  const owner = [];
  const add = (sql, index) => {
    for (const line of `${sql.trim().replace(/;\s*$/, '')};`.split('\n')) {
      lines.push(line);
      owner.push(index);
    }
  };
  if (inTransaction) add('BEGIN', -1);
  statements.forEach((s, i) => {
    if (!TIMEOUT_SETTING.test(s.sql)) add(s.sql, i);
  });
  if (inTransaction) add('COMMIT', -1);
  return { text: `${lines.join('\n')}\n`, owner };
}

/** One statement alone, in a transaction when it ran in one: does it need a timeout at all? */
function statementFile({ sql, inTransaction }) {
  const body = `${sql.trim().replace(/;\s*$/, '')};`;
  return inTransaction ? `BEGIN;\n${body}\nCOMMIT;\n` : `${body}\n`;
}

function firstLine(sql) {
  return (
    sql
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? ''
  );
}

function squawk(dir, files) {
  const bin = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'squawk.cmd' : 'squawk');
  const result = spawnSync(bin, ['--reporter', 'json', '--pg-version', PG_VERSION, ...files], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.error) fail(`squawk did not run (${result.error.message}); run npm ci`);
  // 0: nothing found, 1: findings; anything else is squawk failing (a statement it cannot parse).
  if (result.status !== 0 && result.status !== 1) fail(`squawk failed (exit ${result.status}): ${result.stderr}`);
  const out = result.stdout.trim();
  return out ? JSON.parse(out) : [];
}

/** Every finding, as { migration, direction, rule, statement, message }. */
function findings(captures, dir) {
  const files = new Map();
  captures.forEach((c, i) => {
    const name = `${String(i).padStart(3, '0')}-${c.migration}.${c.direction}`;
    const whole = migrationFile(c);
    writeFileSync(join(dir, `${name}.sql`), whole.text);
    files.set(`${name}.sql`, { capture: c, statementOf: (line) => whole.owner[line] ?? -1, timeouts: false });
    c.statements.forEach((statement, j) => {
      const { lock_timeout: lock, statement_timeout: stmt } = statement.settings ?? {};
      if (statement.settings === null || (lock > 0 && stmt > 0)) return;
      const file = `${name}.${String(j).padStart(3, '0')}.sql`;
      writeFileSync(join(dir, file), statementFile(statement));
      files.set(file, { capture: c, statementOf: () => j, timeouts: true });
    });
  });
  const found = [];
  for (const v of squawk(dir, [...files.keys()])) {
    const file = files.get(v.file);
    if (!file) fail(`squawk named a file it was not given: ${v.file}`);
    const setting = TIMEOUT_RULES[v.rule_name];
    // The timeout rules are read from the files of one statement, every other rule from the whole.
    if (Boolean(setting) !== file.timeouts) continue;
    const { capture: c } = file;
    const index = file.statementOf(v.line);
    const statement = index >= 0 ? c.statements[index] : undefined;
    if (setting && statement.settings[setting] > 0) continue;
    found.push({
      migration: c.migration,
      direction: c.direction,
      rule: v.rule_name,
      statement: statement ? firstLine(statement.sql) : 'BEGIN (the transaction TypeORM runs the migration in)',
      message: v.message,
    });
  }
  return found;
}

function loadExceptions() {
  const { LINT_EXCEPTIONS } = require(join(root, 'migrations/lint-exceptions.ts'));
  const problems = [];
  LINT_EXCEPTIONS.forEach((e, i) => {
    const where = `exception ${i + 1} (${[e.migration].flat().join(', ')}: ${[e.rule].flat().join(', ')})`;
    if (!e.migration?.length || !e.rule?.length) problems.push(`${where}: names no migration or no rule`);
    if (typeof e.reason !== 'string' || e.reason.trim().length < 40) problems.push(`${where}: its reason is missing or too short to say why`);
    if (e.direction && !['up', 'down', '*'].includes(e.direction)) problems.push(`${where}: direction is up, down or *`);
    if (e.migration === '*' && e.rule === '*') problems.push(`${where}: every rule of every migration is no exception`);
  });
  if (problems.length) fail(`migrations/lint-exceptions.ts:\n  ${problems.join('\n  ')}`);
  return LINT_EXCEPTIONS;
}

const matches = (wanted, value) => wanted === '*' || [wanted].flat().includes(value);

function covers(e, f) {
  if (!matches(e.migration, f.migration) || !matches(e.rule, f.rule) || !matches(e.direction ?? 'up', f.direction)) return false;
  if (e.statement === undefined) return true;
  return e.statement instanceof RegExp ? e.statement.test(f.statement) : f.statement.startsWith(e.statement);
}

function describe(e) {
  const list = (v) => [v].flat().join(', ');
  return `${list(e.migration)} ${e.direction ?? 'up'}: ${list(e.rule)}${e.statement ? ` (statements ${e.statement})` : ''}`;
}

async function main() {
  loadTypeScript();
  const exceptions = loadExceptions();
  const srv = await server().catch((err) => fail(`no PostgreSQL to run the migrations on: ${err.message}`));
  const { Client } = require('pg');
  const name = `gh_lint_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: srv.url });
  let captures;
  let failure;
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    captures = await capture(databaseUrl(srv.url, name));
  } catch (err) {
    failure = err;
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end().catch(() => undefined);
    await srv.stop();
  }
  if (failure) fail(`running the migrations failed: ${failure.stack ?? failure}`);

  const dir = mkdtempSync(join(tmpdir(), 'guildhall-lint-sql-'));
  let found;
  try {
    found = findings(captures, dir);
  } finally {
    if (keep) process.stdout.write(`lint:migrations: the SQL squawk read is in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }

  const used = new Set();
  const violations = found.filter((f) => {
    let covered = false;
    exceptions.forEach((e, i) => {
      if (covers(e, f)) (covered = true), used.add(i);
    });
    return !covered;
  });
  const stale = exceptions.filter((_, i) => !used.has(i));

  for (const v of violations) process.stdout.write(`${v.migration} ${v.direction}: ${v.rule}: ${v.statement}\n`);
  for (const e of stale) process.stdout.write(`stale exception: ${describe(e)}: found nowhere any more; remove it from migrations/lint-exceptions.ts\n`);
  const statements = captures.reduce((n, c) => n + c.statements.length, 0);
  const summary = `${captures.length / 2} migrations, ${statements} statements: ${found.length - violations.length} accepted exceptions, ${violations.length} violations, ${stale.length} stale exceptions`;
  if (violations.length || stale.length) {
    process.stdout.write(`lint:migrations: ${summary}\n`);
    process.exit(1);
  }
  process.stdout.write(`lint:migrations: ${summary}\n`);
}

main().catch((err) => fail(err.stack ?? String(err)));
