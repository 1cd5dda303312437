import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres';

/**
 * Server settings given to the embedded cluster reach the server: `npm run bench` preloads
 * pg_stat_statements this way to show where each write scenario's database time goes, so the
 * package's binaries must carry the library too.
 */
let dir: string;
let pg: EmbeddedPostgres | undefined;
afterAll(async () => {
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('starts with the settings it is given: a preloaded pg_stat_statements counts the statements run', async () => {
  dir = mkdtempSync(join(tmpdir(), 'gh-embedded-settings-'));
  chmodSync(dir, 0o755);
  pg = await startEmbeddedPostgres({ dataDir: dir, ephemeral: true, settings: { shared_preload_libraries: 'pg_stat_statements', work_mem: '7MB' } });
  const c = new Client({ connectionString: pg.url });
  await c.connect();
  try {
    expect((await c.query('SHOW work_mem')).rows[0].work_mem).toBe('7MB');
    await c.query('CREATE EXTENSION pg_stat_statements');
    await c.query('SELECT pg_stat_statements_reset()');
    for (let i = 0; i < 3; i++) await c.query('SELECT $1::int + 1 AS n', [i]);
    const { rows } = await c.query(`SELECT calls::int FROM pg_stat_statements WHERE query LIKE 'SELECT $1::int + $2 AS n%'`);
    expect(rows).toEqual([{ calls: 3 }]);
  } finally {
    await c.end();
  }
}, 60_000);
