import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { friendsClient } from '../helpers/friends';
import { cleanEnv, CLI_JS, lines, requireBuild, runNode } from '../helpers/process';
import { asAdmin, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The operator command on record: each change it makes writes an operator audit entry, as the
 * admin routes do, naming `cli` with the OS account and host it ran on, in the transaction of the
 * change. Whoever holds the database URL cannot mint or revoke keys, or apply a ledger, unseen.
 */
jest.setTimeout(300_000);

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const KEY = /jk_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}/;
const ORIGIN = { osUser: userInfo().username, host: hostname() };

interface Entry {
  operator_id: string | null;
  operator_name: string;
  action: string;
  game_id: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
}

let t: TestApp;
let dir: string;
beforeAll(async () => {
  requireBuild();
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  dir = mkdtempSync(join(tmpdir(), 'guildhall-cli-audit-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], vars: Record<string, string> = {}) =>
  runNode(CLI_JS, args, cleanEnv({ DATABASE_URL: t.db.url, SVC_DATA_DIR: dir, ...vars }), 30_000);
const entries = () => t.db.query<Entry>('SELECT operator_id, operator_name, action, game_id, target_id, details FROM operator_audit ORDER BY id');
const idLine = (stdout: string) => /^id +(\S+)$/m.exec(stdout)![1];

/** Runs a command that must succeed, and answers its output. */
async function ok(args: string[]): Promise<string> {
  const r = await cli(args);
  expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
  return r.stdout;
}

let gameId = '';
let key = '';

it('each command that changes something writes one entry as cli, with the OS user and host; the others write none', async () => {
  const seen = (await entries()).length;
  const created = await ok(['game:create', 'Audited']);
  gameId = created.match(UUID)![0];
  key = created.match(KEY)![0];
  const firstKeyId = idLine(created);
  const minted = await ok(['key:mint', gameId, '--scopes', 'read', '--expires-in', '1d']);
  const keyId = idLine(minted);
  await ok(['key:revoke', keyId]);
  await ok(['key:revoke', keyId]); // already revoked: nothing changes, nothing is recorded
  await ok(['key:list', gameId]);
  await ok(['migrate', 'status']);

  expect((await friendsClient(t, gameId, key).del('/v1/users/eve')).status).toBe(200);
  const ledger = join(dir, 'ledger.json');
  await ok(['erasures:export', '--out', ledger]);
  await ok(['erasures:export']);
  await ok(['erasures:apply', ledger]);
  const whole = join(dir, 'whole.json');
  await ok(['ledger', 'export', '--out', whole]);
  await ok(['ledger', 'apply', whole]);

  const [first, second] = await t.db.query<{ id: string; prefix: string; expires_at: Date | null }>(
    'SELECT id, prefix, expires_at FROM api_keys WHERE game_id = $1 ORDER BY created_at, id',
    [gameId],
  );
  expect(first.id).toBe(firstKeyId);
  const asCli = { operator_id: null, operator_name: 'cli' };
  expect((await entries()).slice(seen)).toEqual([
    { ...asCli, action: 'game.created', game_id: gameId, target_id: gameId, details: { name: 'Audited', ...ORIGIN } },
    { ...asCli, action: 'api_key.minted', game_id: gameId, target_id: first.id, details: { prefix: first.prefix, name: null, scopes: ['read', 'write'], expiresAt: null, ...ORIGIN } },
    {
      ...asCli,
      action: 'api_key.minted',
      game_id: gameId,
      target_id: keyId,
      details: { prefix: second.prefix, name: null, scopes: ['read'], expiresAt: second.expires_at!.toISOString(), ...ORIGIN },
    },
    { ...asCli, action: 'api_key.revoked', game_id: gameId, target_id: keyId, details: { prefix: second.prefix, ...ORIGIN } },
    { ...asCli, action: 'erasures.applied', game_id: null, target_id: null, details: { applied: 1, erased: 0, ...ORIGIN } },
    {
      ...asCli,
      action: 'ledger.applied',
      game_id: null,
      target_id: null,
      details: { applied: 2, erased: 0, keysRevoked: 0, operatorsDeleted: 0, rolesLowered: 0, ...ORIGIN },
    },
  ]);
});

it('writes the entry in the transaction of the change: when the entry cannot be written, nothing changes', async () => {
  expect(gameId).not.toBe('');
  const ledger = join(dir, 'again.json');
  writeFileSync(ledger, (await cli(['erasures:export'])).stdout);
  await t.db.query('DELETE FROM erasures');
  const state = async () => ({
    keys: await t.db.query('SELECT id, revoked_at FROM api_keys ORDER BY id'),
    erasures: await t.db.query('SELECT id FROM erasures ORDER BY id'),
    audit: (await entries()).length,
  });
  const before = await state();
  // Another session holds the operator audit: the command's entry waits, and times out.
  const holder = new Client({ connectionString: t.db.url });
  await holder.connect();
  try {
    for (const args of [['key:mint', gameId], ['erasures:apply', ledger], ['ledger', 'apply', ledger], ['game:create', 'Never made']]) {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE operator_audit IN ACCESS EXCLUSIVE MODE');
      const r = await cli(args, { DATABASE_STATEMENT_TIMEOUT_MS: '500' });
      await holder.query('ROLLBACK');
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(lines(r.stderr)).toEqual(['guildhall: the command failed: canceling statement due to statement timeout']);
    }
  } finally {
    await holder.end();
  }
  expect(await state()).toEqual(before);
  expect(await t.db.query(`SELECT id FROM games WHERE name = 'Never made'`)).toEqual([]);
});

it('the admin API lists the command under operatorId=cli, apart from the root token', async () => {
  expect((await t.http.post('/v1/admin/games').set(asAdmin).send({ name: 'By root' })).status).toBe(201);
  const byCli = await t.http.get('/v1/admin/operator-audit?operatorId=cli&limit=100').set(asAdmin);
  expect(byCli.status).toBe(200);
  expect(byCli.body.items.map((e: { action: string }) => e.action)).toEqual(['ledger.applied', 'erasures.applied', 'api_key.revoked', 'api_key.minted', 'api_key.minted', 'game.created']);
  for (const e of byCli.body.items) expect(e).toMatchObject({ operatorId: null, operatorName: 'cli', details: ORIGIN });

  const byRoot = await t.http.get('/v1/admin/operator-audit?operatorId=root&limit=100').set(asAdmin);
  expect(byRoot.body.items.length).toBeGreaterThan(0);
  expect(new Set(byRoot.body.items.map((e: { operatorName: string }) => e.operatorName))).toEqual(new Set(['root']));
  expect(byRoot.body.items[0]).toMatchObject({ action: 'game.created', details: { name: 'By root' } });

  const bad = await t.http.get('/v1/admin/operator-audit?operatorId=console').set(asAdmin);
  expect({ status: bad.status, message: bad.body.message }).toEqual({ status: 400, message: 'operatorId must be an operator id, root or cli' });
});
