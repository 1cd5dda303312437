import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TestDatabase } from '../helpers/test-db';
import { cleanEnv, http, lines, ROOT, runProgram, TEST_ADMIN_TOKEN, waitForHealthy } from '../helpers/process';
import { initCluster, PG15_BIN, removeScratch, scratchDir, type Cluster } from './helpers/pg-cluster';
import { createGame, expectStatus, SecretLedger, startInstance, type Instance } from './helpers/service';

/**
 * Restores that revoke again: a backup taken before a key's revocation, an operator's deletion, a
 * role downgrade (and a promotion after it) and a player's erasure is restored into a new cluster,
 * and the ledger exported after them is applied. Every step is the shell text of the runbook in
 * docs/operations.md, run as written: `umask 077` and `pg_dump`, `ledger export`, `createuser`,
 * `createdb --owner`, `pg_restore --role`, `migrate status` and `ledger apply`, with the server
 * named by PGHOST/PGPORT/PGUSER and the service's database by DATABASE_URL, as the runbook says.
 */

const DB = 'guildhall';
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
}, 90_000);

/** The shell blocks of a section of docs/operations.md, those inside list items included, dedented. */
function runbookBlocks(heading: string): string[] {
  const doc = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const start = doc.indexOf(`\n${heading}`);
  expect(start).toBeGreaterThan(0);
  const end = doc.indexOf('\n### ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```/gm)].map(([, indent, body]) =>
    body
      .split('\n')
      .map((line) => line.slice(indent.length))
      .join('\n'),
  );
}

function blockWith(blocks: string[], command: string): string {
  const found = blocks.filter((b) => b.includes(command));
  expect(found).toHaveLength(1);
  return found[0];
}

/** Runs a runbook block as an operator's shell would, stopping at the first failing line. */
async function runBlock(block: string, cwd: string, vars: Record<string, string>): Promise<string[]> {
  const r = await runProgram(
    'sh',
    ['-ec', block],
    cleanEnv({ ...vars, PATH: `${PG15_BIN}:${process.env.PATH}`, npm_config_cache: join(cwd, '.npm'), npm_config_update_notifier: 'false' }),
    300_000,
    cwd,
  );
  expect({ block, code: r.code, stderr: r.stderr }).toEqual({ block, code: 0, stderr: '' });
  return lines(r.stdout);
}

async function startedCluster(dir: string): Promise<Cluster> {
  const cluster = await initCluster('pg15', dir);
  await cluster.start();
  cleanups.push(() => cluster.stop('immediate'));
  return cluster;
}

async function instanceOn(url: string): Promise<Instance> {
  const instance = await startInstance({ url } as TestDatabase);
  cleanups.push(() => instance.stop());
  return instance;
}

const call = (base: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) =>
  http(`${base}${path}`, { headers: admin, ...init, timeoutMs: 30_000 });

describe('a restore, then the ledger', () => {
  it('a key revoked, an operator deleted, a role lowered and a player erased after the backup stay so once the runbook has run', async () => {
    const export_ = blockWith(runbookBlocks('### The ledger of removed access'), 'ledger export');
    const dumpBlocks = runbookBlocks('### A dump');
    const backup = blockWith(dumpBlocks, 'pg_dump');
    const restore = blockWith(dumpBlocks, 'pg_restore');
    const apply = blockWith(dumpBlocks, 'ledger apply');
    expect(backup.split('\n')[0]).toBe('umask 077');

    const scratch = scratchDir();
    cleanups.push(async () => removeScratch(scratch));
    // The operator's folder: inside the checkout (ignored by git), where `npm run svc` finds the package.
    mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
    const here = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'guildhall-runbook-'));
    cleanups.push(async () => rmSync(here, { recursive: true, force: true }));

    const source = await startedCluster(join(scratch, 'source'));
    await source.sql('postgres', `CREATE DATABASE ${DB}`);
    const service = await instanceOn(source.url(DB));
    const base = service.base;
    const game = await createGame(base, 'restored', new SecretLedger());
    const spare = (await expectStatus(call(base, `/v1/admin/games/${game.id}/api-keys`, { method: 'POST' }), 201)).body as { id: string; key: string };
    const operator = async (name: string, role: string) => (await expectStatus(call(base, '/v1/admin/operators', { method: 'POST', body: { name, role } }), 201)).body;
    const gone = await operator('leaving', 'admin');
    const down = await operator('downgraded', 'owner');
    const back = await operator('promoted again', 'admin');
    const auth = bearer(game.key);
    await expectStatus(call(base, '/v1/groups', { method: 'POST', headers: auth, body: { kind: 'guild', name: 'Keepers', visibility: 'public', creatorUserId: 'eve' } }), 201);

    await runBlock(backup, here, { DATABASE_URL: source.url(DB) });
    const [dump] = readdirSync(here).filter((f) => f.endsWith('.dump'));
    expect(statSync(join(here, dump)).mode & 0o777).toBe(0o600);

    // After the backup: every kind of removal, and a promotion after a downgrade.
    const { revokedAt } = (await expectStatus(call(base, `/v1/admin/games/${game.id}/api-keys/${spare.id}/revoke`, { method: 'POST' }), 200)).body as { revokedAt: string };
    await expectStatus(call(base, `/v1/admin/operators/${gone.id}`, { method: 'DELETE' }), 204);
    await expectStatus(call(base, `/v1/admin/operators/${down.id}`, { method: 'PATCH', body: { role: 'viewer' } }), 200);
    await expectStatus(call(base, `/v1/admin/operators/${back.id}`, { method: 'PATCH', body: { role: 'viewer' } }), 200);
    await expectStatus(call(base, `/v1/admin/operators/${back.id}`, { method: 'PATCH', body: { role: 'moderator' } }), 200);
    await expectStatus(call(base, '/v1/users/eve', { method: 'DELETE', headers: auth }), 200);
    await expectStatus(call(base, '/v1/whoami', { headers: bearer(spare.key) }), 401);
    await expectStatus(call(base, '/v1/admin/whoami', { headers: bearer(gone.token) }), 401);

    const [exported] = await runBlock(export_, here, { DATABASE_URL: source.url(DB) });
    const [ledger] = readdirSync(here).filter((f) => f.startsWith('ledger-') && f.endsWith('.json'));
    expect(exported).toBe(`wrote 6 ledger entries to ${ledger}`);
    expect(statSync(join(here, ledger)).mode & 0o777).toBe(0o600);
    await service.stop();
    await source.stop();

    // The files under the names the runbook's restore gives them.
    renameSync(join(here, dump), join(here, /\S+\.dump/.exec(restore)![0]));
    renameSync(join(here, ledger), join(here, /ledger-\S+\.json/.exec(apply)![0]));

    const restored = await startedCluster(join(scratch, 'restored'));
    await runBlock(restore, here, { PGHOST: '127.0.0.1', PGPORT: String(restored.port), PGUSER: 'postgres' });
    // What the backup brings back: the revoked key, the deleted operator, the old roles, the player.
    expect(await restored.sql(DB, 'SELECT revoked_at FROM api_keys WHERE id = $1', [spare.id])).toEqual([{ revoked_at: null }]);
    expect(await restored.sql(DB, 'SELECT role FROM operators WHERE id = ANY ($1) ORDER BY name', [[gone.id, down.id, back.id]])).toEqual([
      { role: 'owner' },
      { role: 'admin' },
      { role: 'admin' },
    ]);
    expect(await restored.sql(DB, `SELECT tableowner FROM pg_tables WHERE tablename = 'api_keys'`)).toEqual([{ tableowner: 'guildhall' }]);

    const asService = `postgres://guildhall@127.0.0.1:${restored.port}/${DB}`;
    const appliedLine = "applied 6 ledger entries; erased 1 user again; revoked 1 API key again; deleted 1 operator again; lowered 2 operators' roles";
    const out = await runBlock(apply, here, { DATABASE_URL: asService });
    expect(out).toContain('up to date: this build may run on the database');
    expect(out[out.length - 1]).toBe(appliedLine);

    const after = await instanceOn(asService);
    await waitForHealthy(after.base);
    await expectStatus(call(after.base, '/v1/whoami', { headers: bearer(spare.key) }), 401);
    await expectStatus(call(after.base, '/v1/whoami', { headers: auth }), 200);
    await expectStatus(call(after.base, '/v1/admin/whoami', { headers: bearer(gone.token) }), 401);
    expect((await expectStatus(call(after.base, '/v1/admin/whoami', { headers: bearer(down.token) }), 200)).body.role).toBe('viewer');
    expect((await expectStatus(call(after.base, '/v1/admin/whoami', { headers: bearer(back.token) }), 200)).body.role).toBe('moderator');
    const keys = await expectStatus(call(after.base, `/v1/admin/games/${game.id}/api-keys`), 200);
    const revokedKey = (keys.body.items as { id: string; revokedAt: string | null }[]).find((k) => k.id === spare.id);
    expect(revokedKey?.revokedAt).toBe(revokedAt);
    expect(await restored.sql(DB, `SELECT count(*)::int AS n FROM user_identities WHERE external_id = 'eve'`)).toEqual([{ n: 0 }]);
    const audit = await expectStatus(call(after.base, '/v1/admin/operator-audit?action=ledger.applied'), 200);
    expect(audit.body.items).toEqual([
      expect.objectContaining({ operatorName: 'cli', details: expect.objectContaining({ applied: 6, erased: 1, keysRevoked: 1, operatorsDeleted: 1, rolesLowered: 2 }) }),
    ]);

    // Run again, the runbook changes nothing more.
    const again = await runBlock(apply, here, { DATABASE_URL: asService });
    expect(again[again.length - 1]).toBe("applied 6 ledger entries; erased 0 users again; revoked 0 API keys again; deleted 0 operators again; lowered 0 operators' roles");
    const keysAgain = await expectStatus(call(after.base, `/v1/admin/games/${game.id}/api-keys`), 200);
    expect(keysAgain.body).toEqual(keys.body);
  }, 900_000);
});
