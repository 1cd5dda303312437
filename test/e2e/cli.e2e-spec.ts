import { accessSync, constants, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import {
  cleanEnv,
  CLI_JS,
  http,
  killAll,
  lines,
  requireBuild,
  ROOT,
  runNode,
  runProgram,
  sleep,
  startServerProcess,
  treeSnapshot,
  type RunningServer,
} from '../helpers/process';

/**
 * The operator command (SPEC §5 rule 4) as the BUILT dist/src/cli.js process, and through its entry
 * bin/guildhall.js (`npm run svc`, `npx guildhall`), which must never build.
 */

jest.setTimeout(60_000);

const KEY_PATTERN = /jk_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const UNKNOWN_ID = '0190f2a4-0000-7000-8000-000000000000';
const LAUNCHER = join(ROOT, 'bin/guildhall.js');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
};

const KEY_COLUMNS = ['ID', 'PREFIX', 'NAME', 'SCOPES', 'CREATED', 'LAST USED', 'EXPIRES', 'REVOKED'] as const;

/**
 * The rows of `key:list`: id, prefix, name and last use ('-' for none), scopes, created, expiry
 * ('never' for none), revoked ('-' while live). A name may hold spaces, and so does a title: each
 * cell is read where its title starts.
 */
function keyRows(stdout: string) {
  const [header, ...rows] = lines(stdout);
  const starts = KEY_COLUMNS.map((title) => header.indexOf(title));
  expect(header.split(/\s{2,}/)).toEqual([...KEY_COLUMNS]);
  const cell = (row: string, i: number) => row.slice(starts[i], starts[i + 1]).trim();
  return rows.map((row) => {
    const [id, prefix, name, scopes, createdAt, lastUsedAt, expiresAt, revokedAt] = KEY_COLUMNS.map((_, i) => cell(row, i));
    return { id, prefix, name, scopes, createdAt, lastUsedAt, expiresAt, revokedAt };
  });
}

const MINT_USAGE = 'usage: key:mint <gameId> \\[--name <name>\\] \\[--scopes read\\|read,write\\] \\[--expires-in <n>s\\|m\\|h\\|d\\]';

describe('operator command (built dist/src/cli.js as a process)', () => {
  let db: TestDatabase;
  let dataDir: string;
  let server: RunningServer | undefined;
  /** The CLI's environment: only the database, and a data folder holding no `database-url`. */
  const cliEnv = (vars: Record<string, string | undefined> = {}) =>
    cleanEnv({ DATABASE_URL: db.url, SVC_DATA_DIR: dataDir, ...vars });
  const cli = (args: string[], vars?: Record<string, string | undefined>) => runNode(CLI_JS, args, cliEnv(vars), 15_000);

  /** One server on the test database, started the first time a test needs it. */
  async function serverUrl(): Promise<string> {
    server ??= await startServerProcess(db.url);
    return server.url;
  }
  const whoami = async (key: string) => http(`${await serverUrl()}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    requireBuild();
    db = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'guildhall-cli-'));
  });
  afterAll(async () => {
    await killAll();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  let gameId = '';
  let firstKey = '';

  it('game:create "My Game" prints the game id and an API key, and stores the game', async () => {
    const r = await cli(['game:create', 'My Game']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const id = r.stdout.match(UUID)?.[0];
    const key = r.stdout.match(KEY_PATTERN)?.[0];
    expect(id).toBeDefined();
    expect(key).toBeDefined();
    gameId = id!;
    firstKey = key!;
    expect(r.stdout).toContain('My Game');

    const rows = await db.query<{ id: string; name: string }>('SELECT id, name FROM games WHERE id = $1', [gameId]);
    expect(rows).toEqual([{ id: gameId, name: 'My Game' }]);
    // Only the hash of the secret is stored.
    const keys = await db.query<{ prefix: string }>('SELECT prefix FROM api_keys WHERE game_id = $1', [gameId]);
    expect(keys).toEqual([{ prefix: firstKey.split('.')[0] }]);
  });

  it('the printed key authenticates GET /v1/whoami on a server started on that database', async () => {
    expect(firstKey).not.toBe('');
    const r = await whoami(firstKey);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      gameId,
      gameName: 'My Game',
      keyId: expect.stringMatching(UUID),
      keyPrefix: firstKey.split('.')[0],
      scopes: ['read', 'write'],
      expiresAt: null,
    });
    const [row] = await db.query<{ id: string }>('SELECT id FROM api_keys WHERE prefix = $1', [firstKey.split('.')[0]]);
    expect(r.body.keyId).toBe(row.id);
  });

  it('key:mint <gameId> prints a second, distinct key that works too', async () => {
    expect(gameId).not.toBe('');
    const r = await cli(['key:mint', gameId]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const second = r.stdout.match(KEY_PATTERN)?.[0];
    expect(second).toBeDefined();
    expect(second).not.toBe(firstKey);

    const a = await whoami(firstKey);
    const b = await whoami(second!);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({ gameId, gameName: 'My Game', keyPrefix: second!.split('.')[0] });
    expect(b.body.keyId).not.toBe(a.body.keyId);
    expect(await db.query('SELECT id FROM api_keys WHERE game_id = $1', [gameId])).toHaveLength(2);
  });

  it('key:mint <unknown uuid> exits non-zero with one line and mints nothing', async () => {
    const before = await db.query('SELECT id FROM api_keys');
    const r = await cli(['key:mint', '0190f2a4-0000-7000-8000-000000000000']);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stdout).not.toMatch(KEY_PATTERN);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/game/i);
    expect(await db.query('SELECT id FROM api_keys')).toHaveLength(before.length);
  });

  it('key:mint --scopes read --expires-in 30d prints the key and its id; the key reads only, and expires then', async () => {
    const scoped = (await cli(['game:create', 'Scoped keys'])).stdout.match(UUID)![0];
    const r = await cli(['key:mint', scoped, '--scopes', 'read', '--expires-in', '30d']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const key = r.stdout.match(KEY_PATTERN)![0];
    const [row] = await db.query<{ id: string; scopes: string[]; created_at: Date; expires_at: Date }>(
      'SELECT id, scopes, created_at, expires_at FROM api_keys WHERE prefix = $1',
      [key.split('.')[0]],
    );
    expect(lines(r.stdout)).toEqual([
      `API key ${key}`,
      `id       ${row.id}`,
      'scopes   read',
      `expires  ${row.expires_at.toISOString()}`,
      '(the key is shown only now)',
    ]);
    expect(row.scopes).toEqual(['read']);
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(30 * 86_400_000);

    const me = await whoami(key);
    expect(me.body).toMatchObject({ keyId: row.id, scopes: ['read'], expiresAt: row.expires_at.toISOString() });
    const write = await http(`${await serverUrl()}/v1/groups`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: { kind: 'guild', name: 'x', visibility: 'public' } });
    expect({ status: write.status, code: write.body?.code }).toEqual({ status: 403, code: 'permission_denied' });

    const listed = keyRows((await cli(['key:list', scoped])).stdout);
    expect(listed).toHaveLength(2);
    expect(listed[0]).toEqual({
      id: row.id,
      prefix: key.split('.')[0],
      name: '-',
      scopes: 'read',
      createdAt: expect.any(String),
      lastUsedAt: '-',
      expiresAt: row.expires_at.toISOString(),
      revokedAt: '-',
    });
    expect(listed[1]).toMatchObject({ scopes: 'read,write', expiresAt: 'never' });
  });

  it('key:list <gameId> lists the keys, newest first, with their prefix and dates and never a secret', async () => {
    expect(gameId).not.toBe('');
    const r = await cli(['key:list', gameId]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).not.toMatch(KEY_PATTERN);
    expect(r.stdout).not.toContain(firstKey.split('.')[1]);
    const stored = await db.query<{ id: string; prefix: string; created_at: Date }>(
      'SELECT id, prefix, created_at FROM api_keys WHERE game_id = $1 ORDER BY created_at DESC, id DESC',
      [gameId],
    );
    expect(keyRows(r.stdout)).toEqual(
      stored.map((k) => ({
        id: k.id,
        prefix: k.prefix,
        name: '-',
        scopes: 'read,write',
        createdAt: k.created_at.toISOString(),
        // The server has used them: '-' until it writes its uses (once a minute), then that time.
        lastUsedAt: expect.stringMatching(/^(-|\d{4}-\d\d-\d\dT[\d:.]+Z)$/),
        expiresAt: 'never',
        revokedAt: '-',
      })),
    );
    expect(keyRows(r.stdout).map((k) => k.prefix)).toContain(firstKey.split('.')[0]);
  });

  // Four commands and a server started and stopped: more than the file's minute on a busy machine.
  it('key:mint --name names the key, in its output and key:list; LAST USED shows its use once the server wrote it, at the latest as it stops', async () => {
    const named = (await cli(['game:create', 'Named keys'])).stdout.match(UUID)![0];
    const r = await cli(['key:mint', named, '--name', 'nightly export', '--scopes', 'read']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const key = r.stdout.match(KEY_PATTERN)![0];
    const [row] = await db.query<{ id: string; name: string }>('SELECT id, name FROM api_keys WHERE prefix = $1', [key.split('.')[0]]);
    expect(row.name).toBe('nightly export');
    expect(lines(r.stdout)).toEqual([`API key ${key}`, `id       ${row.id}`, 'name     nightly export', 'scopes   read', 'expires  never', '(the key is shown only now)']);
    const unused = keyRows((await cli(['key:list', named])).stdout).find((k) => k.id === row.id);
    expect(unused).toMatchObject({ name: 'nightly export', scopes: 'read', lastUsedAt: '-' });

    // A server of its own, stopped as an operator stops one: it writes the uses it noted as it shuts down.
    const own = await startServerProcess(db.url);
    const before = Date.now();
    expect((await http(`${own.url}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    const after = Date.now();
    own.proc.child.kill('SIGTERM');
    const exit = await own.proc.waitForExit(10_000);
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);

    const used = keyRows((await cli(['key:list', named])).stdout).find((k) => k.id === row.id)!;
    expect(used.name).toBe('nightly export');
    expect(Date.parse(used.lastUsedAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(used.lastUsedAt)).toBeLessThanOrEqual(after);
  }, 180_000);

  it('key:revoke <keyId> revokes the key on a running server at once; the other key still works', async () => {
    const before = await whoami(firstKey);
    expect(before.status).toBe(200); // the server now holds the key in its cache
    const keyId: string = before.body.keyId;

    const r = await cli(['key:revoke', keyId]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(lines(r.stdout)).toEqual([expect.stringContaining(keyId)]);
    expect(r.stdout).toContain(firstKey.split('.')[0]);
    const [row] = await db.query<{ revoked_at: Date | null }>('SELECT revoked_at FROM api_keys WHERE id = $1', [keyId]);
    expect(row.revoked_at).not.toBeNull();

    // The revocation reaches the server through NOTIFY, not its cache's five-minute expiry.
    const deadline = Date.now() + 3_000;
    let after = await whoami(firstKey);
    while (after.status === 200 && Date.now() < deadline) {
      await sleep(50);
      after = await whoami(firstKey);
    }
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'invalid_api_key' });

    const listed = keyRows((await cli(['key:list', gameId])).stdout);
    expect(listed.find((k) => k.id === keyId)?.revokedAt).toBe(row.revoked_at!.toISOString());
    const live = listed.filter((k) => k.revokedAt === '-');
    expect(live).toHaveLength(1);
  });

  it('key:revoke of a revoked key succeeds again and keeps the first revocation time', async () => {
    const [revoked] = await db.query<{ id: string; revoked_at: Date }>(
      'SELECT id, revoked_at FROM api_keys WHERE game_id = $1 AND revoked_at IS NOT NULL',
      [gameId],
    );
    const r = await cli(['key:revoke', revoked.id.toUpperCase()]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toContain(revoked.revoked_at.toISOString());
    expect(await db.query('SELECT revoked_at FROM api_keys WHERE id = $1', [revoked.id])).toEqual([
      { revoked_at: revoked.revoked_at },
    ]);
  });

  describe('a bad argument prints one line of help and exits 1, changing nothing', () => {
    const cases: [string, string[], RegExp][] = [
      ['an unknown command', ['game:delete', 'x'], /unknown command "game:delete"; commands: .*key:list, key:revoke, ledger, erasures:export, erasures:apply, migrate, help$/],
      ['key:mint without a game id', ['key:mint'], new RegExp(`key:mint takes one game id; ${MINT_USAGE}$`)],
      ['key:mint with a malformed id', ['key:mint', 'not-a-uuid'], new RegExp(`"not-a-uuid" is not a valid game id \\(a UUID\\); ${MINT_USAGE}$`)],
      ['key:mint with an unknown option', ['key:mint', UNKNOWN_ID, '--label', 'ci'], new RegExp(`unknown option "--label"; ${MINT_USAGE}$`)],
      ['key:mint with a name over 64 characters', ['key:mint', UNKNOWN_ID, '--name', 'n'.repeat(65)], /--name "n{65}": must be a string of 1-64 characters, not blank, without control characters; usage: key:mint /],
      ['key:mint with a blank name', ['key:mint', UNKNOWN_ID, '--name=  '], /--name " {2}": must be a string of 1-64 characters/],
      ['key:mint with a bad duration', ['key:mint', UNKNOWN_ID, '--expires-in', '30x'], /--expires-in "30x" is not a duration: a whole number of s, m, h or d \(90d, 12h\); usage: key:mint /],
      ['key:mint with a duration out of range', ['key:mint', UNKNOWN_ID, '--expires-in=20s'], /--expires-in "20s": must be an integer number of seconds from 60 to 315360000 \(10 years\); usage: key:mint /],
      ['key:mint with a bad scope', ['key:mint', UNKNOWN_ID, '--scopes', 'write'], /--scopes "write": must be \["read"\] or \["read", "write"\]: distinct scopes, read always among them; usage: key:mint /],
      ['key:mint with an option missing its value', ['key:mint', UNKNOWN_ID, '--scopes'], /--scopes needs a value: --scopes read\|read,write; usage: key:mint /],
      ['key:list with an option', ['key:list', UNKNOWN_ID, '--all'], /unknown option "--all"; usage: key:list <gameId>$/],
      ['key:list without a game id', ['key:list'], /key:list takes one game id; usage: key:list <gameId>$/],
      ['key:list with two ids', ['key:list', UNKNOWN_ID, UNKNOWN_ID], /key:list takes one game id; usage: key:list <gameId>$/],
      ['key:list with a malformed id', ['key:list', '42'], /"42" is not a valid game id \(a UUID\); usage: key:list <gameId>$/],
      ['key:list of an unknown game', ['key:list', UNKNOWN_ID], new RegExp(`no game has the id ${UNKNOWN_ID}; usage: key:list <gameId>$`)],
      ['key:revoke without a key id', ['key:revoke'], /key:revoke takes one API key id; usage: key:revoke <keyId>$/],
      ['key:revoke with a malformed id', ['key:revoke', 'jk_0123'], /"jk_0123" is not a valid API key id \(a UUID\); usage: key:revoke <keyId>$/],
      ['key:revoke of an unknown key', ['key:revoke', UNKNOWN_ID], new RegExp(`no API key has the id ${UNKNOWN_ID}; usage: key:revoke <keyId>$`)],
      ['a command name with a newline in it', ['key:\nlist'], /^guildhall: unknown command "key:\\nlist"; commands: /],
    ];
    it.each(cases)('%s', async (_what, args, message) => {
      const before = await db.query('SELECT id, revoked_at FROM api_keys ORDER BY id');
      const r = await cli(args);
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
      expect(lines(r.stderr)).toEqual([expect.stringMatching(/^guildhall: /)]);
      expect(r.stderr.trim()).toMatch(message);
      expect(r.stderr).not.toMatch(/\bat .*:\d+|not_found|internal|\b500\b/);
      expect(await db.query('SELECT id, revoked_at FROM api_keys ORDER BY id')).toEqual(before);
    });

    it('the malformed and missing arguments are refused before any database work', async () => {
      const nowhere = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' };
      for (const args of [['game:delete'], ['key:list'], ['key:revoke', 'x'], ['game:create'], ['key:mint', UNKNOWN_ID, '--expires-in', '1y']]) {
        const r = await cli(args, nowhere);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/usage: |commands: /);
        expect(r.stderr).not.toMatch(/database/i);
      }
    });
  });

  it('game:create without a name, or with a name over 200 characters, exits non-zero and creates nothing', async () => {
    const before = await db.query('SELECT id FROM games');
    for (const args of [['game:create'], ['game:create', '   '], ['game:create', 'x'.repeat(201)]]) {
      const r = await cli(args);
      expect(r.code).not.toBe(0);
      expect(r.code).not.toBeNull();
      expect(lines(r.stderr)).toHaveLength(1);
    }
    expect(await db.query('SELECT id FROM games')).toHaveLength(before.length);
  });

  it('game:create joins several words into the name', async () => {
    const r = await cli(['game:create', 'Space', 'Pirates']);
    expect(r.code).toBe(0);
    const id = r.stdout.match(UUID)![0];
    expect(await db.query('SELECT name FROM games WHERE id = $1', [id])).toEqual([{ name: 'Space Pirates' }]);
  });

  it('help exits 0 printing the usage (no database needed)', async () => {
    for (const args of [['help'], ['--help']]) {
      const r = await runNode(CLI_JS, args, cleanEnv({ SVC_DATA_DIR: dataDir }), 15_000);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage:/);
      for (const command of ['game:create', 'key:mint', 'key:list <gameId>', 'key:revoke <keyId>', 'help']) {
        expect(r.stdout).toContain(command);
      }
      for (const way of ['node dist/src/cli.js', 'npx guildhall', 'npm run svc --']) expect(r.stdout).toContain(way);
      expect(r.stderr).toBe('');
    }
  });

  it('no command prints the usage', async () => {
    const r = await runNode(CLI_JS, [], cleanEnv({ SVC_DATA_DIR: dataDir }), 15_000);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage:/);
    expect(r.stdout).toContain('game:create');
  });


  it('without DATABASE_URL (and no running `npm start`) it exits non-zero with one line', async () => {
    const r = await runNode(CLI_JS, ['game:create', 'Nowhere'], cleanEnv({ SVC_DATA_DIR: dataDir }), 15_000);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain('DATABASE_URL');
  });

  it('with an unreachable database it exits non-zero with one line about the database', async () => {
    const r = await cli(['game:create', 'Nowhere'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' });
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/database/i);
  });

  it('a database failure, while starting or during the command, is one line without a stack', async () => {
    // Another session holds each table the command reads; the command's statements time out.
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    try {
      for (const table of ['schema_migrations', 'api_keys']) {
        await holder.query('BEGIN');
        await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
        const r = await cli(['key:list', gameId], { DATABASE_STATEMENT_TIMEOUT_MS: '300' });
        await holder.query('ROLLBACK');
        expect({ table, code: r.code, stdout: r.stdout }).toEqual({ table, code: 1, stdout: '' });
        expect(lines(r.stderr)).toEqual(['guildhall: the command failed: canceling statement due to statement timeout']);
      }
    } finally {
      await holder.end();
    }
  });

  describe('never builds, so it is safe beside a running server', () => {
    it('`npm run svc` and the `guildhall` bin run bin/guildhall.js, which only loads dist/src/cli.js', () => {
      expect(PACKAGE.scripts.svc).toBe('node bin/guildhall.js');
      expect(PACKAGE.bin).toEqual({ guildhall: 'bin/guildhall.js' });
      const source = readFileSync(LAUNCHER, 'utf8');
      expect(source.split('\n')[0]).toBe('#!/usr/bin/env node');
      expect(source).not.toMatch(/child_process|tsc|rmSync|unlink|writeFile/);
      expect(() => accessSync(LAUNCHER, constants.X_OK)).not.toThrow();
    });

    it('`npm run svc`, `npx guildhall` and the launcher work under a running server and leave dist/ untouched', async () => {
      await serverUrl(); // a server on the same database, as in production
      const before = treeSnapshot(join(ROOT, 'dist'));
      const env = cliEnv({ npm_config_cache: join(dataDir, 'npm-cache'), npm_config_update_notifier: 'false' });

      const viaNpm = await runProgram('npm', ['run', '--silent', 'svc', '--', 'key:list', gameId], env);
      expect({ code: viaNpm.code, stderr: viaNpm.stderr }).toEqual({ code: 0, stderr: '' });
      expect(keyRows(viaNpm.stdout)).toHaveLength(2);
      // `npx` links this package from its own folder (nothing is fetched) and runs the bin.
      const viaNpx = await runProgram('npx', ['--offline', 'guildhall', 'key:list', gameId], env);
      expect({ code: viaNpx.code, stderr: viaNpx.stderr }).toEqual({ code: 0, stderr: '' });
      // The same listing, but for LAST USED: the running server records its keys' use every minute,
      // which may fall between the two commands.
      const unused = (stdout: string) => keyRows(stdout).map(({ lastUsedAt: _, ...row }) => row);
      expect(unused(viaNpx.stdout)).toEqual(unused(viaNpm.stdout));
      const minted = await runNode(LAUNCHER, ['key:mint', gameId], env);
      expect(minted.code).toBe(0);
      expect(minted.stdout).toMatch(KEY_PATTERN);

      expect(treeSnapshot(join(ROOT, 'dist'))).toEqual(before);
      expect((await whoami(minted.stdout.match(KEY_PATTERN)![0])).status).toBe(200);
    });

    it('without dist/ it says in one line to run `npm run build` first, and exits 1', async () => {
      const unbuilt = join(dataDir, 'unbuilt');
      mkdirSync(join(unbuilt, 'bin'), { recursive: true });
      copyFileSync(LAUNCHER, join(unbuilt, 'bin/guildhall.js'));
      const r = await runNode(join(unbuilt, 'bin/guildhall.js'), ['key:list', gameId], cliEnv());
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
      expect(lines(r.stderr)).toEqual(['guildhall: dist/src/cli.js is missing: run `npm run build` first']);
    });
  });
});
