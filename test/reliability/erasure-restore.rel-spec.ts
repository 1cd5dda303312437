import { join } from 'node:path';
import type { TestDatabase } from '../helpers/test-db';
import { http, TEST_ADMIN_TOKEN } from '../helpers/process';
import { initCluster, removeScratch, run, scratchDir, type Cluster } from './helpers/pg-cluster';
import { createGame, expectStatus, SecretLedger, startInstance, type Instance } from './helpers/service';

/**
 * An erasure that stays erased (EXTENSIONS X7): a backup taken before a player's erasure is
 * restored, and the player is back; the ledger exported after the erasure, applied to the
 * restored database, erases them again. Real clusters, the built service, pg_dump and pg_restore.
 */

const DB = 'guildhall';
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
}, 90_000);

async function startedCluster(dir: string): Promise<Cluster> {
  const cluster = await initCluster('pg15', dir);
  await cluster.start();
  cleanups.push(() => cluster.stop('immediate'));
  await cluster.sql('postgres', `CREATE DATABASE ${DB}`);
  return cluster;
}

async function instanceOn(cluster: Cluster): Promise<Instance> {
  const instance = await startInstance({ url: cluster.url(DB) } as TestDatabase);
  cleanups.push(() => instance.stop());
  return instance;
}

/** The rows of the database that still name `needle`, but the erasure's event and ledger. */
async function traces(cluster: Cluster, needle: string): Promise<string[]> {
  const tables = await cluster.sql<{ t: string }>(DB, `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`);
  const found: string[] = [];
  for (const { t } of tables) {
    const rows = await cluster.sql<{ row: string }>(DB, `SELECT x::text AS row FROM ${t} x WHERE strpos(x::text, '${needle}') > 0`);
    found.push(...rows.filter((r) => !r.row.includes('user.erased')).map((r) => `${t}: ${r.row}`));
  }
  return found;
}

describe('an erasure after a restore', () => {
  it('a backup from before the erasure brings the player back; applying the exported ledger erases them again', async () => {
    const scratch = scratchDir();
    cleanups.push(async () => removeScratch(scratch));
    const source = await startedCluster(join(scratch, 'source'));
    const service = await instanceOn(source);
    const game = await createGame(service.base, 'erased', new SecretLedger());
    const auth = { authorization: `Bearer ${game.key}` };
    const group = await expectStatus(
      http(`${service.base}/v1/groups`, { method: 'POST', headers: auth, body: { kind: 'guild', name: 'Keepers', visibility: 'public', creatorUserId: 'eve-restored' } }),
      201,
    );
    await expectStatus(http(`${service.base}/v1/groups/${group.body.id}/join`, { method: 'POST', headers: auth, body: { userId: 'bob' } }), 201);

    const dump = join(scratch, 'guildhall.dump');
    await run('pg15', 'pg_dump', ['-Fc', '-f', dump, source.url(DB)]);

    await expectStatus(http(`${service.base}/v1/users/eve-restored`, { method: 'DELETE', headers: auth }), 200);
    const ledger = await expectStatus(http(`${service.base}/v1/admin/erasures?limit=1000`, { headers: admin }), 200);
    expect(ledger.body.items).toHaveLength(1);
    await service.stop();
    await source.stop();

    const restored = await startedCluster(join(scratch, 'restored'));
    await run('pg15', 'pg_restore', ['--no-owner', '-d', restored.url(DB), dump]);
    const after = await instanceOn(restored);
    const back = await expectStatus(http(`${after.base}/v1/groups/${group.body.id}/members`, { headers: auth }), 200);
    expect((back.body.items as { userId: string }[]).map((m) => m.userId).sort()).toEqual(['bob', 'eve-restored']);
    expect((await traces(restored, 'eve-restored')).length).toBeGreaterThan(0);

    const applied = await expectStatus(http(`${after.base}/v1/admin/erasures/apply`, { method: 'POST', headers: admin, body: { items: ledger.body.items } }), 200);
    expect(applied.body).toEqual({ applied: 1, erased: 1 });
    const gone = await expectStatus(http(`${after.base}/v1/groups/${group.body.id}`, { headers: auth }), 200);
    expect(gone.body).toMatchObject({ memberCount: 1, ownerUserId: 'bob' });
    expect(await traces(restored, 'eve-restored')).toEqual([]);
    const again = await expectStatus(http(`${after.base}/v1/admin/erasures?limit=1000`, { headers: admin }), 200);
    expect(again.body.items).toEqual(ledger.body.items);
  }, 300_000);
});
