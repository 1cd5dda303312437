import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { friendsClient } from '../helpers/friends';
import { cleanEnv, CLI_JS, lines, requireBuild, runNode } from '../helpers/process';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * `ledger export` and `ledger apply`, as the built CLI process, between a database and copies of it
 * taken before access was removed: what a restore from an older backup brings back, the ledger
 * removes again, once, whatever is applied after.
 */
jest.setTimeout(300_000);

type Role = 'viewer' | 'moderator' | 'admin' | 'owner';
interface Entry {
  kind: string;
  id: string;
  at: string;
  [field: string]: string;
}

let db: TestDatabase;
/** Copies of `db` from before the removals, as a backup taken then restores it. */
let backup: TestDatabase;
let second: TestDatabase;
let app: TestApp;
let dir: string;
const w = {} as { gameId: string; revoked: string; revokedKey: string; kept: string; keptKey: string; gone: string; goneToken: string; down: string; back: string };

const cli = (database: TestDatabase, args: string[]) => runNode(CLI_JS, args, cleanEnv({ DATABASE_URL: database.url, SVC_DATA_DIR: dir }), 60_000);
async function ok(database: TestDatabase, args: string[]): Promise<string[]> {
  const r = await cli(database, args);
  expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
  return lines(r.stdout);
}
const operator = async (t: TestApp, name: string, role: Role) => (await t.http.post('/v1/admin/operators').set(asAdmin).send({ name, role })).body as { id: string; token: string };
const setRole = (t: TestApp, id: string, role: Role) => t.http.patch(`/v1/admin/operators/${id}`).set(asAdmin).send({ role });
/** What access looks like in a database: its keys, operators and players. */
const access = async (database: TestDatabase) => ({
  keys: await database.query('SELECT id, revoked_at FROM api_keys ORDER BY id'),
  operators: await database.query('SELECT id, role FROM operators ORDER BY id'),
  players: await database.query('SELECT external_id FROM user_identities ORDER BY external_id'),
  ledger: await database.query('SELECT id FROM access_ledger ORDER BY id'),
  erasures: await database.query('SELECT id FROM erasures ORDER BY id'),
});
const applied = (n: number, erased: number, keys: number, operators: number, roles: number) =>
  `applied ${n} ledger entr${n === 1 ? 'y' : 'ies'}; erased ${erased} user${erased === 1 ? '' : 's'} again; ` +
  `revoked ${keys} API key${keys === 1 ? '' : 's'} again; deleted ${operators} operator${operators === 1 ? '' : 's'} again; ` +
  `lowered ${roles} ${roles === 1 ? "operator's role" : "operators' roles"}`;

beforeAll(async () => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'guildhall-access-ledger-'));
  db = await createTestDatabase();
  let t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' }, db);
  const { gameId, key, keyId } = await newGame(t, 'restored');
  const spare = (await t.http.post(`/v1/admin/games/${gameId}/api-keys`).set(asAdmin)).body as { id: string; key: string };
  const gone = await operator(t, 'leaving', 'admin');
  Object.assign(w, { gameId, revoked: spare.id, revokedKey: spare.key, kept: keyId, keptKey: key, gone: gone.id, goneToken: gone.token });
  w.down = (await operator(t, 'downgraded', 'owner')).id;
  w.back = (await operator(t, 'promoted again', 'admin')).id;
  expect((await friendsClient(t, gameId, key).post('/v1/groups', { kind: 'guild', name: 'g', visibility: 'public', creatorUserId: 'eve' })).status).toBe(201);
  await t.close();
  backup = await db.copy();
  second = await db.copy();

  app = t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' }, db);
  expect((await t.http.post(`/v1/admin/games/${gameId}/api-keys/${w.revoked}/revoke`).set(asAdmin)).status).toBe(200);
  expect((await t.http.delete(`/v1/admin/operators/${w.gone}`).set(asAdmin)).status).toBe(204);
  expect((await setRole(t, w.down, 'viewer')).status).toBe(200);
  expect((await setRole(t, w.back, 'viewer')).status).toBe(200);
  expect((await setRole(t, w.back, 'moderator')).status).toBe(200);
  expect((await friendsClient(t, gameId, key).del('/v1/users/eve')).status).toBe(200);
});
afterAll(async () => {
  await app?.close();
  await backup?.drop();
  await second?.drop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('ledger export', () => {
  it('writes every kind of removal, oldest first, to a new file only its owner may read; never over a file', async () => {
    const file = join(dir, 'ledger.json');
    const [said] = await ok(db, ['ledger', 'export', '--out', file]);
    const { items } = JSON.parse(readFileSync(file, 'utf8')) as { items: Entry[] };
    expect(said).toBe(`wrote ${items.length} ledger entries to ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe((await cli(db, ['ledger', 'export'])).stdout);

    const [revokedAt] = await db.query<{ revoked_at: Date }>('SELECT revoked_at FROM api_keys WHERE id = $1', [w.revoked]);
    expect(items).toEqual([
      { kind: 'api_key.revoked', id: expect.any(String), at: revokedAt.revoked_at.toISOString(), gameId: w.gameId, keyId: w.revoked },
      { kind: 'operator.deleted', id: expect.any(String), at: expect.any(String), operatorId: w.gone },
      { kind: 'operator.role_changed', id: expect.any(String), at: expect.any(String), operatorId: w.down, role: 'viewer' },
      { kind: 'operator.role_changed', id: expect.any(String), at: expect.any(String), operatorId: w.back, role: 'viewer' },
      { kind: 'operator.role_changed', id: expect.any(String), at: expect.any(String), operatorId: w.back, role: 'moderator' },
      { kind: 'user.erased', id: expect.any(String), at: expect.any(String), gameId: w.gameId, subjectHash: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
    expect([...items].sort((a, b) => a.at.localeCompare(b.at))).toEqual(items);

    const again = await cli(db, ['ledger', 'export', '--out', file]);
    expect({ code: again.code, stdout: again.stdout, stderr: lines(again.stderr) }).toEqual({
      code: 1,
      stdout: '',
      stderr: [`guildhall: ${file} exists; nothing was written: --out never replaces a file (an export from a restored database may lack entries it holds): name a new one`],
    });
    const later = await cli(db, ['ledger', 'export', new Date(Date.now() + 60_000).toISOString()]);
    expect(JSON.parse(later.stdout)).toEqual({ items: [] });
  });

  it('erasures:export still exports the erasures alone', async () => {
    const { items } = JSON.parse((await cli(db, ['erasures:export'])).stdout) as { items: Record<string, string>[] };
    expect(items).toEqual([{ id: expect.any(String), gameId: w.gameId, subjectHash: expect.any(String), erasedAt: expect.any(String) }]);
  });
});

describe('ledger apply, on a copy from before the removals', () => {
  it('revokes the key again at its first revocation time, deletes the operator, lowers roles to the last recorded, erases again: on record as cli', async () => {
    const before = await access(backup);
    expect(before.keys).toContainEqual({ id: w.revoked, revoked_at: null });
    expect(before.operators).toContainEqual({ id: w.gone, role: 'admin' });

    const file = join(dir, 'ledger.json');
    const { items } = JSON.parse(readFileSync(file, 'utf8')) as { items: Entry[] };
    expect(await ok(backup, ['ledger', 'apply', file])).toEqual([applied(items.length, 1, 1, 1, 2)]);

    const after = await access(backup);
    const [original] = await db.query<{ revoked_at: Date }>('SELECT revoked_at FROM api_keys WHERE id = $1', [w.revoked]);
    expect(after.keys).toEqual(before.keys.map((k) => (k.id === w.revoked ? { id: w.revoked, revoked_at: original.revoked_at } : k)));
    expect(after.keys).toContainEqual({ id: w.kept, revoked_at: null });
    expect(after.operators).toEqual(
      before.operators.flatMap((o) => {
        if (o.id === w.gone) return [];
        if (o.id === w.down) return [{ id: w.down, role: 'viewer' }];
        if (o.id === w.back) return [{ id: w.back, role: 'moderator' }];
        return [o];
      }),
    );
    expect(after.players).toEqual([]);
    // The restored ledger holds again what the lost one held.
    expect(after.ledger).toEqual((await access(db)).ledger);
    expect(after.erasures).toEqual((await access(db)).erasures);

    const [audit] = await backup.query<{ operator_id: string | null; operator_name: string; action: string; details: Record<string, unknown> }>(
      'SELECT operator_id, operator_name, action, details FROM operator_audit ORDER BY id DESC LIMIT 1',
    );
    expect(audit).toEqual({
      operator_id: null,
      operator_name: 'cli',
      action: 'ledger.applied',
      details: { applied: items.length, erased: 1, keysRevoked: 1, operatorsDeleted: 1, rolesLowered: 2, osUser: userInfo().username, host: hostname() },
    });
  });

  it('applied twice, changes nothing the second time', async () => {
    const before = await access(backup);
    const { items } = JSON.parse(readFileSync(join(dir, 'ledger.json'), 'utf8')) as { items: Entry[] };
    expect(await ok(backup, ['ledger', 'apply', join(dir, 'ledger.json')])).toEqual([applied(items.length, 0, 0, 0, 0)]);
    expect(await access(backup)).toEqual(before);
  });

  it('takes an erasures:export file; leaves a key revoked since the restore at its own time; never raises a role', async () => {
    const old = join(dir, 'erasures.json');
    await ok(db, ['erasures:export', '--out', old]);
    expect(await ok(second, ['ledger', 'apply', old])).toEqual([applied(1, 1, 0, 0, 0)]);

    // After the restore, before the ledger: the key revoked again by hand, the downgraded owner made viewer, the other promoted to owner.
    await ok(second, ['key:revoke', w.revoked]);
    const [own] = await second.query<{ revoked_at: Date }>('SELECT revoked_at FROM api_keys WHERE id = $1', [w.revoked]);
    await second.query(`UPDATE operators SET role = 'viewer' WHERE id = $1`, [w.down]);
    await second.query(`UPDATE operators SET role = 'owner' WHERE id = $1`, [w.back]);
    expect(await ok(second, ['ledger', 'apply', join(dir, 'ledger.json')])).toEqual([applied(6, 0, 0, 1, 1)]);
    expect(await second.query('SELECT revoked_at FROM api_keys WHERE id = $1', [w.revoked])).toEqual([own]);
    expect(await second.query('SELECT id, role FROM operators WHERE id = ANY ($1) ORDER BY id', [[w.down, w.back, w.gone]])).toEqual(
      [
        { id: w.down, role: 'viewer' },
        { id: w.back, role: 'moderator' },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
  });

  it('the restored service refuses the revoked key and the deleted operator, and knows the lowered role', async () => {
    const restored = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' }, backup);
    try {
      const { items } = (await restored.http.get('/v1/admin/operators').set(asAdmin)).body as { items: { id: string; role: Role }[] };
      expect(items.filter((o) => [w.gone, w.down, w.back].includes(o.id)).map((o) => o.role).sort()).toEqual(['moderator', 'viewer']);
      expect((await restored.http.get('/v1/admin/whoami').set(bearer(w.goneToken))).status).toBe(401);
      expect((await restored.http.get('/v1/whoami').set(bearer(w.keptKey))).status).toBe(200);
      expect((await restored.http.get('/v1/whoami').set(bearer(w.revokedKey))).status).toBe(401);
    } finally {
      await restored.close();
    }
  });
});

describe('a file ledger apply refuses', () => {
  it('names its line and field, exits 1, and applies nothing', async () => {
    const text = readFileSync(join(dir, 'ledger.json'), 'utf8');
    const { items } = JSON.parse(text) as { items: Entry[] };
    const write = (name: string, body: string) => {
      writeFileSync(join(dir, name), body);
      return { file: join(dir, name), body };
    };
    const lineOf = (body: string, part: string) => body.split('\n').findIndex((l) => l.includes(part)) + 1;
    const role = write('role.json', JSON.stringify({ items: [...items, { ...items[2], role: 'root' }] }, null, 1));
    const kind = write('kind.json', JSON.stringify({ items: [{ ...items[0], kind: 'game.deleted' }, ...items] }, null, 1));
    const keyless = write('keyless.json', JSON.stringify({ items: [...items.slice(1), { kind: 'api_key.revoked', id: items[0].id, at: items[0].at, gameId: w.gameId }] }, null, 2));
    const listed = write('listed.json', JSON.stringify(items, null, 1));
    const broken = write('broken.json', `${text.slice(0, 40)}`);
    const missing = join(dir, 'missing.json');
    const cases: [string, string][] = [
      [role.file, `${role.file} line ${lineOf(role.body, '"root"')}: field "role" must be one of viewer, moderator, admin, owner; nothing was applied`],
      [kind.file, `${kind.file} line ${lineOf(kind.body, '"game.deleted"')}: field "kind" must be one of user.erased, api_key.revoked, operator.deleted, operator.role_changed; nothing was applied`],
      [keyless.file, `${keyless.file} line ${keyless.body.split('\n').lastIndexOf('    {') + 1}: field "keyId" must be a lowercase UUID; nothing was applied`],
      [listed.file, `${listed.file} line 1: not a ledger: the file must hold one JSON object, { "items": [...] }, as ledger export writes it; nothing was applied`],
      [broken.file, `${broken.file} line ${broken.body.split('\n').length}: not JSON: expected `],
      [missing, `cannot read ${missing} (ENOENT: no such file or directory, open '${missing}'); usage: ledger apply <file>`],
    ];
    const before = await access(second);
    const audit = await second.query('SELECT count(*)::int AS n FROM operator_audit');
    for (const [file, says] of cases) {
      const r = await cli(second, ['ledger', 'apply', file]);
      expect({ file, code: r.code, stdout: r.stdout }).toEqual({ file, code: 1, stdout: '' });
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr.trim().startsWith(`guildhall: ${says}`)).toBe(true);
    }
    expect(await access(second)).toEqual(before);
    expect(await second.query('SELECT count(*)::int AS n FROM operator_audit')).toEqual(audit);
  });

  it('erasures:apply refuses a ledger export file, naming the line of its first kind, rather than apply its erasures alone', async () => {
    const file = join(dir, 'ledger.json');
    const r = await cli(second, ['erasures:apply', file]);
    const line = readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes('"kind"')) + 1;
    expect({ code: r.code, stderr: lines(r.stderr) }).toEqual({
      code: 1,
      stderr: [`guildhall: ${file} line ${line}: field "kind" marks a file of ledger export, which holds more than erasures: apply it with ledger apply; nothing was applied`],
    });
  });
});
