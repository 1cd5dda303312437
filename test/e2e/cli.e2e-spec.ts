import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import {
  cleanEnv,
  CLI_JS,
  http,
  killAll,
  lines,
  requireBuild,
  runNode,
  startServerProcess,
  type RunningServer,
} from '../helpers/process';

/** The operator command (`npm run svc`, SPEC §5 rule 4) as the BUILT dist/src/cli.js process. */

jest.setTimeout(60_000);

const KEY_PATTERN = /jk_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

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

  it('key:mint with a malformed id, or none, exits non-zero', async () => {
    for (const args of [['key:mint', 'not-a-uuid'], ['key:mint']]) {
      const r = await cli(args);
      expect(r.code).not.toBe(0);
      expect(r.code).not.toBeNull();
      expect(r.stdout).not.toMatch(KEY_PATTERN);
    }
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
      for (const command of ['game:create', 'key:mint', 'help']) expect(r.stdout).toContain(command);
      expect(r.stderr).toBe('');
    }
  });

  it('no command prints the usage', async () => {
    const r = await runNode(CLI_JS, [], cleanEnv({ SVC_DATA_DIR: dataDir }), 15_000);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage:/);
    expect(r.stdout).toContain('game:create');
  });

  it('an unknown command exits non-zero and shows the usage', async () => {
    const r = await cli(['game:delete', 'x']);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stderr).toContain('game:delete');
    expect(r.stderr).toContain('Usage:');
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
});
