import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createDataSource, runMigrations } from '../../src/db/data-source';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres';
import { databaseUrl } from './test-db';

/**
 * One Postgres for the whole run: DATABASE_URL when set, else a throwaway embedded cluster.
 * The schema is migrated once into a template; each test file clones it (CREATE DATABASE ...
 * TEMPLATE), so files run in parallel on databases of their own.
 */
export default async function globalSetup(): Promise<void> {
  let serverUrl = process.env.DATABASE_URL;
  let cleanup = async () => undefined as void;
  if (!serverUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'guildhall-test-'));
    chmodSync(dir, 0o755);
    const pg = await startEmbeddedPostgres({ dataDir: dir, ephemeral: true });
    serverUrl = pg.url;
    cleanup = async () => {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const template = `gh_template_${process.pid}_${Date.now()}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  const ds = createDataSource({ url: databaseUrl(serverUrl, template), poolMax: 2 });
  await ds.initialize();
  await runMigrations(ds);
  await ds.destroy();

  process.env.GH_TEST_SERVER_URL = serverUrl;
  process.env.GH_TEST_TEMPLATE = template;
  (globalThis as Record<string, unknown>).__ghTeardown = async () => {
    const c = new Client({ connectionString: serverUrl });
    await c.connect();
    const { rows } = await c.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [template, `gh_t_${process.pid}_%`],
    );
    for (const r of rows) await c.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
    await c.end();
    await cleanup();
  };
}
