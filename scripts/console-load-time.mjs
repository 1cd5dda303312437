// How fast the console's pages load on the benchmark dataset (bench/lib/seed.mjs: at scale 1 a game
// of 10,000 groups, 1,000,000 members, 1,000,000 audit entries). Starts the built service on it,
// signs in with Chromium, then loads each page afresh 5 times and prints the median time from
// navigation to the page's last section rendered (no loading state left). CONSOLE_BENCH_SCALE sets
// the dataset's scale (default 1); DATABASE_URL a PostgreSQL to use instead of an embedded one.
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { migrate, openDatabase } from '../bench/lib/postgres.mjs';
import { freePort, startNode, stopNode, waitHttp } from '../bench/lib/processes.mjs';
import { GAME_ID, groupUuid, seed, seedSizes } from '../bench/lib/seed.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TOKEN = `jadm_${randomBytes(18).toString('base64url')}`;
const RUNS = 5;

const db = await openDatabase(ROOT);
let server;
let browser;
try {
  await migrate(ROOT, db.url);
  const clients = [new pg.Client({ connectionString: db.url }), new pg.Client({ connectionString: db.url })];
  for (const c of clients) await c.connect();
  // Without the bench's million-group search game: the pages read the main game only.
  const sizes = { ...seedSizes(Number(process.env.CONSOLE_BENCH_SCALE ?? 1)), searchGroups: 0 };
  await seed(clients, sizes);
  await clients[0].query('ANALYZE');
  for (const c of clients) await c.end();

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  server = startNode('server', ['dist/src/main.js'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url, SVC_ADMIN_TOKEN: TOKEN, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '0' },
  });
  await waitHttp(server, `${base}/healthz`);

  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${base}/console/`);
  await page.getByLabel('Admin token').fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Games', level: 1 }).waitFor();

  const big = groupUuid(0);
  const pages = {
    'games': '#/games',
    'game overview (headline, keys, five charts)': `#/games/${GAME_ID}`,
    'groups (sorted by name)': `#/games/${GAME_ID}/groups?sort=name&order=asc`,
    [`members of the ${sizes.bigGroup.toLocaleString('en')}-member group`]: `#/games/${GAME_ID}/groups/${big}`,
    "the big group's audit history": `#/games/${GAME_ID}/groups/${big}?tab=audit`,
    'game audit search': `#/games/${GAME_ID}/audit`,
  };
  console.log(`Console page loads, ${sizes.groups.toLocaleString('en')} groups, ${sizes.members.toLocaleString('en')} members, ${sizes.audit.toLocaleString('en')} audit entries (median of ${RUNS}):`);
  for (const [name, route] of Object.entries(pages)) {
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      await page.goto('about:blank');
      const started = Date.now();
      await page.goto(`${base}/console/${route}`);
      await page.waitForFunction(() => document.querySelector('main h1') && !document.querySelector('[aria-busy], .loading'));
      // Charts are drawn in the frame after their data arrives.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(undefined))));
      times.push(Date.now() - started);
    }
    times.sort((a, b) => a - b);
    console.log(`  ${name.padEnd(48)} ${String(times[Math.floor(RUNS / 2)]).padStart(5)} ms`);
  }
} finally {
  await browser?.close();
  if (server) await stopNode(server);
  await db.stop();
}
