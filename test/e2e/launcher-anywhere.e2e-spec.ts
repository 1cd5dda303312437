import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, DEV_JS, freePort, http, killAll, MAIN_JS, requireBuild, spawnNode, type Proc } from '../helpers/process';
import { Client } from 'pg';
import { createTestDatabase, databaseUrl, type TestDatabase } from '../helpers/test-db';

/**
 * `npm start` from anywhere a user can write: its embedded PostgreSQL comes up from a private
 * (0700) folder whose path has a space, as root or not, keeps its data across a restart and after
 * the launcher was killed outright; and every start-up failure a user can cause is one line on
 * stderr naming the cause and the fix, exit code 1, no stack.
 */

jest.setTimeout(180_000);

const STACK = /^\s+at .+\(.*:\d+:\d+\)$|^\s+at .+:\d+:\d+$/m;

/** Waits for the banner and returns its API key and base URL. */
async function banner(proc: Proc): Promise<{ url: string; apiKey: string }> {
  await proc.waitForOutput(/curl .*\/v1\/whoami\s*\n/, 120_000);
  const out = proc.stdout();
  return { url: out.match(/listening on (http:\/\/\S+)/)![1], apiKey: out.match(/API key\s+(jk_\S+)/)![1] };
}

/** The refusal: exit 1, exactly one stderr line matching `cause`, no stack anywhere. */
async function expectOneLineRefusal(proc: Proc, cause: RegExp): Promise<string> {
  const exit = await proc.waitForExit(60_000);
  const err = proc.stderr().trim();
  expect({ code: exit.code, lines: err.split('\n').length }).toEqual({ code: 1, lines: 1 });
  expect(err).toMatch(/^guildhall: /);
  expect(err).toMatch(cause);
  expect(proc.stdout() + proc.stderr()).not.toMatch(STACK);
  return err;
}

describe('npm start from anywhere (built dist/src/dev.js, embedded PostgreSQL)', () => {
  let home: string;
  let dataDir: string;

  const launch = async (): Promise<Proc> =>
    spawnNode(DEV_JS, [], cleanEnv({ SVC_DATA_DIR: dataDir, PORT: String(await freePort()) }));

  beforeAll(() => {
    requireBuild();
    // mkdtemp makes a 0700 folder: as root, the postgres account cannot search it.
    home = mkdtempSync(join(tmpdir(), 'guildhall-anywhere-'));
    expect(statSync(home).mode & 0o777).toBe(0o700);
    dataDir = join(home, 'a clone', '.data');
    mkdirSync(join(home, 'a clone'), { mode: 0o700 });
  });
  afterAll(async () => {
    await killAll();
    const location = join(dataDir, 'pg-location');
    if (existsSync(location)) {
      const cluster = readFileSync(location, 'utf8').trim();
      rmSync(cluster, { recursive: true, force: true });
      rmSync(`${cluster}.origin`, { force: true });
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('starts, answers the printed curl, and keeps its data across a restart and a killed launcher', async () => {
    const first = await launch();
    const { url, apiKey } = await banner(first);
    const group = await http(`${url}/v1/groups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: { kind: 'guild', name: 'Kept across restarts' },
    });
    expect(group.status).toBe(201);
    if (existsSync(join(dataDir, 'pg-location'))) {
      const relocated = readFileSync(join(dataDir, 'pg-location'), 'utf8').trim();
      expect(userInfo().uid).toBe(0);
      expect(existsSync(join(relocated, 'PG_VERSION'))).toBe(true);
    } else {
      expect(existsSync(join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
    }

    // Killed outright: its PostgreSQL is left running on the cluster; the next start stops it.
    first.child.kill('SIGKILL');
    await first.waitForExit(10_000);
    const second = await launch();
    const again = await banner(second);
    expect(again.apiKey).toBe(apiKey);
    const kept = await http(`${again.url}/v1/groups/${group.body.id}`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(kept.status).toBe(200);
    expect(kept.body.name).toBe('Kept across restarts');

    second.child.kill('SIGTERM');
    expect((await second.waitForExit(30_000)).code).toBe(0);
  });

  it('deleting the data folder starts afresh, and a relocated cluster left behind is removed', async () => {
    const location = join(dataDir, 'pg-location');
    const before = existsSync(location) ? readFileSync(location, 'utf8').trim() : undefined;
    rmSync(dataDir, { recursive: true, force: true });
    const proc = await launch();
    const { url, apiKey } = await banner(proc);
    const groups = await http(`${url}/v1/groups`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(groups.status).toBe(200);
    expect(groups.body.items).toEqual([]);
    if (before) expect(existsSync(before)).toBe(false);
    proc.child.kill('SIGTERM');
    expect((await proc.waitForExit(30_000)).code).toBe(0);
  });

  it('a damaged cluster is refused with one line that says how to start afresh', async () => {
    const damaged = join(home, 'damaged');
    mkdirSync(join(damaged, 'pg'), { recursive: true });
    writeFileSync(join(damaged, 'pg', 'PG_VERSION'), '18\n');
    writeFileSync(join(damaged, 'pg-password'), 'whatever');
    const proc = spawnNode(DEV_JS, [], cleanEnv({ SVC_DATA_DIR: damaged, PORT: String(await freePort()) }));
    const line = await expectOneLineRefusal(proc, /did not start/);
    expect(line).toMatch(/delete the data folder/);
  });
});

describe('start-up failures a user can cause: one line, exit 1', () => {
  let db: TestDatabase;
  let scratch: string;

  beforeAll(async () => {
    requireBuild();
    db = await createTestDatabase();
    scratch = mkdtempSync(join(tmpdir(), 'guildhall-refusals-'));
  });
  afterEach(() => killAll());
  afterAll(async () => {
    await db?.drop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('a data folder that cannot be written', async () => {
    // A regular file in the way: refused whatever the user's rights (root included).
    writeFileSync(join(scratch, 'a-file'), '');
    const proc = spawnNode(DEV_JS, [], cleanEnv({ DATABASE_URL: db.url, SVC_DATA_DIR: join(scratch, 'a-file', 'data'), PORT: String(await freePort()) }));
    await expectOneLineRefusal(proc, /cannot write the data folder .*SVC_DATA_DIR/);
  });

  describe('a port that is taken', () => {
    let holder: Server;
    let port: number;
    beforeAll(async () => {
      port = await freePort();
      holder = createServer();
      await new Promise<void>((r) => holder.listen(port, '0.0.0.0', r));
    });
    afterAll(() => new Promise<void>((r) => holder.close(() => r())));

    it.each([
      ['npm start', DEV_JS],
      ['npm run start:prod', MAIN_JS],
    ])('%s', async (_name, script) => {
      const dir = join(scratch, `port-${script.length}`);
      const env = cleanEnv({ DATABASE_URL: db.url, SVC_DATA_DIR: dir, PORT: String(port), SVC_ADMIN_TOKEN: 'jadm_e2e_port_taken_0123456789' });
      const proc = spawnNode(script, [], env);
      await expectOneLineRefusal(proc, new RegExp(`port ${port} is already in use.*set PORT`));
    });
  });

  it('a database that cannot be reached', async () => {
    const closed = await freePort();
    const proc = spawnNode(
      DEV_JS,
      [],
      cleanEnv({ DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/guildhall`, SVC_DATA_DIR: join(scratch, 'unreachable'), PORT: String(await freePort()) }),
    );
    await expectOneLineRefusal(proc, new RegExp(`cannot reach the database at 127\\.0\\.0\\.1:${closed}.*correct DATABASE_URL`));
  });

  it('a database user without the right to create tables (npm run start:prod)', async () => {
    const role = `gh_ro_${process.pid}_${Date.now()}`;
    const server = new URL(process.env.GH_TEST_SERVER_URL!);
    const admin = new Client({ connectionString: server.toString() });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'readonly-pass'`);
      // A fresh database whose public schema this role may not create in.
      const empty = `${role}_db`;
      await admin.query(`CREATE DATABASE ${empty}`);
      const inDb = new Client({ connectionString: databaseUrl(server.toString(), empty) });
      await inDb.connect();
      await inDb.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
      await inDb.end();
      const url = new URL(databaseUrl(server.toString(), empty));
      url.username = role;
      url.password = 'readonly-pass';
      const proc = spawnNode(MAIN_JS, [], cleanEnv({ DATABASE_URL: url.toString(), PORT: String(await freePort()), SVC_ADMIN_TOKEN: 'jadm_e2e_no_rights_0123456789' }));
      await expectOneLineRefusal(proc, /schema migration failed .*permission denied.*right to create tables/);
      await admin.query(`DROP DATABASE ${empty} WITH (FORCE)`);
    } finally {
      await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
      await admin.end();
    }
  });

  it('a damaged demo.json is made again, not a crash', async () => {
    const dir = join(scratch, 'damaged-demo');
    mkdirSync(dir);
    writeFileSync(join(dir, 'demo.json'), '{"gameId": ');
    const proc = spawnNode(DEV_JS, [], cleanEnv({ DATABASE_URL: db.url, SVC_DATA_DIR: dir, PORT: String(await freePort()) }));
    const { url, apiKey } = await banner(proc);
    const me = await http(`${url}/v1/whoami`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(me.status).toBe(200);
    expect(JSON.parse(readFileSync(join(dir, 'demo.json'), 'utf8')).apiKey).toBe(apiKey);
  });
});
