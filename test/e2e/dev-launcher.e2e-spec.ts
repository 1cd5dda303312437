import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { cleanEnv, DEV_JS, freePort, http, killAll, requireBuild, spawnNode, waitForHttp, type Proc } from '../helpers/process';

/**
 * The newcomer's launcher (`npm start`) as the BUILT dist/src/dev.js process, on an external
 * database (DATABASE_URL), with its data folder in a fresh temp dir.
 */

jest.setTimeout(60_000);

interface Banner {
  url: string;
  adminToken: string;
  gameId: string;
  apiKey: string;
  curl: string;
}

/** Waits (bounded) for the banner, which ends with the curl line, and reads it. */
async function readBanner(proc: Proc): Promise<Banner> {
  await proc.waitForOutput(/curl .*\/v1\/whoami\s*\n/, 20_000);
  const out = proc.stdout();
  const pick = (re: RegExp, what: string) => {
    const m = out.match(re);
    if (!m) throw new Error(`the banner has no ${what}: ${proc.describe()}`);
    return m[1];
  };
  return {
    url: pick(/listening on (http:\/\/\S+)/, 'base URL'),
    adminToken: pick(/admin token\s+(jadm_\S+)/, 'admin token'),
    gameId: pick(/demo game\s+(\S+)/, 'demo game id'),
    apiKey: pick(/API key\s+(jk_\S+)/, 'API key'),
    curl: pick(/^\s*(curl .*)$/m, 'curl line'),
  };
}

describe('development launcher (built dist/src/dev.js as a process)', () => {
  let db: TestDatabase;
  let dataDir: string;
  let port: number;
  let first: Banner | undefined;

  const launch = (): Proc =>
    // No SVC_ADMIN_TOKEN, no NODE_ENV, no HOST: the launcher's own defaults apply.
    spawnNode(DEV_JS, [], cleanEnv({ DATABASE_URL: db.url, SVC_DATA_DIR: dataDir, PORT: String(port) }));

  beforeAll(async () => {
    requireBuild();
    db = await createTestDatabase();
    dataDir = join(mkdtempSync(join(tmpdir(), 'guildhall-dev-')), 'data');
    port = await freePort();
  });
  afterEach(() => killAll());
  afterAll(async () => {
    await killAll();
    await db?.drop();
    if (dataDir) rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('first run prints the base URL, an admin token, an API key and a curl line, all of which work', async () => {
    const proc = launch();
    const banner = await readBanner(proc);
    first = banner;

    expect(banner.url).toBe(`http://127.0.0.1:${port}`);
    expect(banner.adminToken).toMatch(/^jadm_[A-Za-z0-9_-]{16,}$/);
    expect(banner.apiKey).toMatch(/^jk_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/);
    expect(banner.curl).toBe(`curl -s -H "Authorization: Bearer ${banner.apiKey}" ${banner.url}/v1/whoami`);
    expect((await waitForHttp(banner.url, 5_000, proc)).status).toBe(200);

    // Metrics are on, on a port of their own (the next one when free), never on the API's.
    const metrics = proc.stdout().match(/metrics\s+(http:\/\/127\.0\.0\.1:(\d+)\/metrics)/);
    expect(metrics).not.toBeNull();
    expect(Number(metrics![2])).not.toBe(port);
    const scraped = await http(metrics![1]);
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('# TYPE svc_http_requests_total counter');
    expect((await http(`${banner.url}/metrics`)).status).toBe(404);

    // The admin token is kept in <dataDir>/admin-token, readable by the owner only.
    const tokenFile = join(dataDir, 'admin-token');
    expect(existsSync(tokenFile)).toBe(true);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(tokenFile, 'utf8').trim()).toBe(banner.adminToken);
    // So is the demo key.
    const demoFile = join(dataDir, 'demo.json');
    expect(statSync(demoFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(demoFile, 'utf8'))).toEqual({ gameId: banner.gameId, apiKey: banner.apiKey });
    // With an external database, nothing of an embedded one is left behind.
    expect(existsSync(join(dataDir, 'database-url'))).toBe(false);
    expect(existsSync(join(dataDir, 'pg'))).toBe(false);

    const games = await http(`${banner.url}/v1/admin/games`, { headers: { authorization: `Bearer ${banner.adminToken}` } });
    expect(games.status).toBe(200);
    expect(games.body.items).toEqual([expect.objectContaining({ id: banner.gameId, name: 'Demo game', apiKeyCount: 1 })]);
    const refused = await http(`${banner.url}/v1/admin/games`, { headers: { authorization: 'Bearer jadm_not_the_right_token_0000' } });
    expect(refused.status).toBe(401);

    const me = await http(`${banner.url}/v1/whoami`, { headers: { authorization: `Bearer ${banner.apiKey}` } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ gameId: banner.gameId, gameName: 'Demo game', keyPrefix: banner.apiKey.split('.')[0] });
  });

  it('a restart with the same data folder reuses the token and the key (no second demo game)', async () => {
    expect(first).toBeDefined();
    const proc = launch();
    const again = await readBanner(proc);
    expect(again).toEqual(first);

    const demo = await db.query<{ id: string }>(`SELECT id FROM games WHERE name = 'Demo game'`);
    expect(demo).toEqual([{ id: first!.gameId }]);
    expect(await db.query('SELECT id FROM api_keys WHERE game_id = $1', [first!.gameId])).toHaveLength(1);

    const games = await http(`${again.url}/v1/admin/games`, { headers: { authorization: `Bearer ${again.adminToken}` } });
    expect(games.status).toBe(200);
    const me = await http(`${again.url}/v1/whoami`, { headers: { authorization: `Bearer ${again.apiKey}` } });
    expect(me.status).toBe(200);
    expect(me.body.gameId).toBe(first!.gameId);
  });

  it('SIGTERM stops it within 10 s', async () => {
    const proc = launch();
    await readBanner(proc);
    proc.child.kill('SIGTERM');
    const exit = await proc.waitForExit(10_000);
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
  });

  it('an explicit SVC_ADMIN_TOKEN wins over the saved one, which is left as it was', async () => {
    const explicit = 'jadm_explicit_e2e_token_0123456789';
    const saved = readFileSync(join(dataDir, 'admin-token'), 'utf8');
    const proc = spawnNode(
      DEV_JS,
      [],
      cleanEnv({ DATABASE_URL: db.url, SVC_DATA_DIR: dataDir, PORT: String(port), SVC_ADMIN_TOKEN: explicit }),
    );
    const banner = await readBanner(proc);
    expect(banner.adminToken).toBe(explicit);
    const ok = await http(`${banner.url}/v1/admin/games`, { headers: { authorization: `Bearer ${explicit}` } });
    expect(ok.status).toBe(200);
    expect(readFileSync(join(dataDir, 'admin-token'), 'utf8')).toBe(saved);
  });

  it('an invalid setting is refused with one line before anything is created', async () => {
    const fresh = join(dataDir, '..', 'refused');
    const p = await freePort();
    const proc = spawnNode(DEV_JS, [], cleanEnv({ DATABASE_URL: db.url, SVC_DATA_DIR: fresh, PORT: String(p), LOG_LEVEL: 'loud' }));
    const exit = await proc.waitForExit(10_000);
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(proc.stderr().trim().split('\n')).toHaveLength(1);
    expect(proc.stderr()).toContain('LOG_LEVEL');
    expect(existsSync(join(fresh, 'admin-token'))).toBe(false);
    expect(existsSync(join(fresh, 'demo.json'))).toBe(false);
  });
});
