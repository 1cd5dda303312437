import { cleanEnv, CLI_JS, requireBuild, runNode } from '../helpers/process';
import { createTestDatabase } from '../helpers/test-db';
import { asAdmin, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The ledger of removed access (docs/operations.md): every key revocation, operator deletion and
 * change of role is recorded in the transaction of the change, through the admin routes as through
 * the operator command; and the migration that brings the ledger fills it from what the database knew.
 */
jest.setTimeout(120_000);

interface Row {
  kind: string;
  at: Date;
  game_id: string | null;
  target_id: string;
  role: string | null;
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => t.close());

const entriesFor = (targetId: string) =>
  t.db.query<Row>('SELECT kind, at, game_id, target_id, role FROM access_ledger WHERE target_id = $1 ORDER BY at, id', [targetId]);
const operator = async (role: string) => (await t.http.post('/v1/admin/operators').set(asAdmin).send({ name: `op ${role}`, role })).body as { id: string; token: string };
const mint = async (gameId: string) => (await t.http.post(`/v1/admin/games/${gameId}/api-keys`).set(asAdmin)).body as { id: string; key: string };

describe('each removal of access writes its ledger entry', () => {
  it('a key revoked through the admin route: one entry at the key\'s revocation time; revoking again adds none', async () => {
    const { gameId } = await newGame(t, 'revoked');
    const key = await mint(gameId);
    const revoke = () => t.http.post(`/v1/admin/games/${gameId}/api-keys/${key.id}/revoke`).set(asAdmin);
    const first = await revoke();
    expect(first.status).toBe(200);
    expect((await revoke()).body.revokedAt).toBe(first.body.revokedAt);
    expect(await entriesFor(key.id)).toEqual([{ kind: 'api_key.revoked', at: new Date(first.body.revokedAt), game_id: gameId, target_id: key.id, role: null }]);
  });

  it('a key revoked with the operator command (key:revoke) writes the same entry', async () => {
    requireBuild();
    const { gameId } = await newGame(t, 'revoked by cli');
    const key = await mint(gameId);
    const r = await runNode(CLI_JS, ['key:revoke', key.id], cleanEnv({ DATABASE_URL: t.db.url, SVC_DATA_DIR: '/nonexistent' }), 30_000);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const [row] = await t.db.query<{ revoked_at: Date }>('SELECT revoked_at FROM api_keys WHERE id = $1', [key.id]);
    expect(await entriesFor(key.id)).toEqual([{ kind: 'api_key.revoked', at: row.revoked_at, game_id: gameId, target_id: key.id, role: null }]);
  });

  it('an operator deleted: one entry; deleting them again is 404 and adds none', async () => {
    const gone = await operator('admin');
    expect((await t.http.delete(`/v1/admin/operators/${gone.id}`).set(asAdmin)).status).toBe(204);
    expect((await t.http.delete(`/v1/admin/operators/${gone.id}`).set(asAdmin)).status).toBe(404);
    expect(await entriesFor(gone.id)).toEqual([{ kind: 'operator.deleted', at: expect.any(Date), game_id: null, target_id: gone.id, role: null }]);
  });

  it('every change of role, down and up again, in order; setting the role an operator has adds none', async () => {
    const changed = await operator('admin');
    for (const role of ['viewer', 'viewer', 'moderator']) {
      expect((await t.http.patch(`/v1/admin/operators/${changed.id}`).set(asAdmin).send({ role })).status).toBe(200);
    }
    const rows = await entriesFor(changed.id);
    expect(rows.map((r) => [r.kind, r.role])).toEqual([
      ['operator.role_changed', 'viewer'],
      ['operator.role_changed', 'moderator'],
    ]);
    expect(rows[1].at.getTime()).toBeGreaterThanOrEqual(rows[0].at.getTime());
  });

  it('in the transaction of the change: when the entry cannot be written, nothing is changed and nothing audited', async () => {
    const { gameId } = await newGame(t, 'kept');
    const key = await mint(gameId);
    const kept = await operator('owner');
    const [{ audit }] = await t.db.query<{ audit: number }>('SELECT count(*)::int AS audit FROM operator_audit');
    await t.db.query('ALTER TABLE access_ledger ADD CONSTRAINT refuse_all CHECK (false) NOT VALID');
    try {
      expect((await t.http.post(`/v1/admin/games/${gameId}/api-keys/${key.id}/revoke`).set(asAdmin)).status).toBe(500);
      expect((await t.http.patch(`/v1/admin/operators/${kept.id}`).set(asAdmin).send({ role: 'viewer' })).status).toBe(500);
      expect((await t.http.delete(`/v1/admin/operators/${kept.id}`).set(asAdmin)).status).toBe(500);
    } finally {
      await t.db.query('ALTER TABLE access_ledger DROP CONSTRAINT refuse_all');
    }
    expect(await t.db.query('SELECT revoked_at FROM api_keys WHERE id = $1', [key.id])).toEqual([{ revoked_at: null }]);
    expect(await t.db.query('SELECT role FROM operators WHERE id = $1', [kept.id])).toEqual([{ role: 'owner' }]);
    expect(await t.db.query<{ audit: number }>('SELECT count(*)::int AS audit FROM operator_audit')).toEqual([{ audit }]);
    expect(await entriesFor(key.id)).toEqual([]);
    expect(await entriesFor(kept.id)).toEqual([]);
  });
});

describe('migration AccessLedger1766300000000', () => {
  it('fills the ledger with what the database knew: revoked keys, and the deletions and role changes of the operator audit', async () => {
    requireBuild();
    const db = await createTestDatabase();
    try {
      const app = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' }, db);
      const { gameId, keyId } = await newGame(app, 'before the ledger');
      await app.http.post(`/v1/admin/games/${gameId}/api-keys/${keyId}/revoke`).set(asAdmin);
      const made = (await app.http.post('/v1/admin/operators').set(asAdmin).send({ name: 'seeded', role: 'owner' })).body as { id: string };
      await app.http.patch(`/v1/admin/operators/${made.id}`).set(asAdmin).send({ role: 'moderator' });
      const gone = (await app.http.post('/v1/admin/operators').set(asAdmin).send({ name: 'seeded gone', role: 'viewer' })).body as { id: string };
      await app.http.delete(`/v1/admin/operators/${gone.id}`).set(asAdmin);
      await app.close();
      const written = await db.query('SELECT kind, game_id, target_id, role FROM access_ledger ORDER BY kind, target_id');
      const [{ revoked }] = await db.query<{ revoked: Date }>('SELECT revoked_at AS revoked FROM api_keys WHERE id = $1', [keyId]);

      const cli = (args: string[]) => runNode(CLI_JS, args, cleanEnv({ DATABASE_URL: db.url, SVC_DATA_DIR: '/nonexistent' }), 60_000);
      const down = await cli(['migrate', 'down', '--to', 'SchemaReleases1766000000000']);
      expect({ code: down.code, stderr: down.stderr }).toEqual({ code: 0, stderr: '' });
      expect(await db.query(`SELECT to_regclass('access_ledger') AS t`)).toEqual([{ t: null }]);
      const up = await cli(['migrate', 'up']);
      expect({ code: up.code, stderr: up.stderr }).toEqual({ code: 0, stderr: '' });

      expect(await db.query('SELECT kind, game_id, target_id, role FROM access_ledger ORDER BY kind, target_id')).toEqual(written);
      expect(written).toHaveLength(3);
      expect(await db.query('SELECT at FROM access_ledger WHERE target_id = $1', [keyId])).toEqual([{ at: revoked }]);
    } finally {
      await db.drop();
    }
  });
});
