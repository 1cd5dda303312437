import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, http, sleep } from '../helpers/process';
import { parseExposition, samplesOf } from '../helpers/metrics';
import type { TestDatabase } from '../helpers/test-db';
import { clusterAt, initCluster, removeScratch, run, scratchDir, serverFolder, type Cluster } from './helpers/pg-cluster';
import { createGame, expectStatus, SecretLedger, startInstance, type Game, type Instance } from './helpers/service';

/**
 * Read replicas with read-your-writes (docs/read-replicas.md), on a real primary and a real
 * streaming standby (PostgreSQL 15, pg_basebackup -R). The standby logs every statement with its
 * application name, so what reached it is read from its log, not inferred from the service's word.
 */

const DB = 'guildhall';
const WAIT_MS = 300;

let dir: string;
let primary: Cluster;
let standby: Cluster;
const instances: Instance[] = [];

beforeAll(async () => {
  dir = scratchDir();
  primary = await initCluster('pg15', join(dir, 'primary'), { wal_level: 'replica', max_wal_senders: '4' });
  await primary.start();
  await primary.sql('postgres', `CREATE DATABASE ${DB}`);
  const standbyDir = serverFolder(join(dir, 'standby'));
  await run('pg15', 'pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream', '--no-sync'], 'server');
  standby = clusterAt('pg15', standbyDir, await freePort(), {
    hot_standby: 'on',
    log_statement: "'all'",
    log_line_prefix: "'app=%a '",
  });
  await standby.start();
}, 120_000);

afterAll(async () => {
  for (const i of instances) await i.stop().catch(() => undefined);
  await standby?.stop('immediate').catch(() => undefined);
  await primary?.stop('immediate').catch(() => undefined);
  if (dir) removeScratch(dir);
}, 90_000);

afterEach(async () => {
  // Whatever a case did, the next one starts with a replica that replays.
  await standby.sql('postgres', 'SELECT pg_wal_replay_resume()').catch(() => undefined);
});

async function instance(env: Record<string, string>): Promise<{ i: Instance; metrics: string }> {
  const metricsPort = String(await freePort());
  const i = await startInstance({ url: primary.url(DB) } as TestDatabase, {
    DATABASE_READ_URL: standby.url(DB),
    METRICS_PORT: metricsPort,
    WEBHOOK_WORKER_ENABLED: 'false',
    LOG_LEVEL: 'info',
    ...env,
  });
  instances.push(i);
  return { i, metrics: `http://127.0.0.1:${metricsPort}/metrics` };
}

/** svc_db_replica_reads_total by outcome. */
async function outcomes(metrics: string): Promise<Record<string, number>> {
  const e = parseExposition((await http(metrics)).text);
  return Object.fromEntries(samplesOf(e, 'svc_db_replica_reads_total').map((s) => [s.labels.outcome, s.value]));
}

async function delta(metrics: string, work: () => Promise<void>): Promise<Record<string, number>> {
  const before = await outcomes(metrics);
  await work();
  const after = await outcomes(metrics);
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]).filter(([, v]) => v !== 0));
}

/** Until the standby has replayed everything the primary has flushed. */
async function caughtUp(): Promise<void> {
  const [{ lsn }] = await primary.sql<{ lsn: string }>('postgres', 'SELECT pg_current_wal_flush_lsn()::text AS lsn');
  for (const until = Date.now() + 20_000; Date.now() < until; await sleep(20)) {
    const [{ ok }] = await standby.sql<{ ok: boolean }>('postgres', 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn]);
    if (ok) return;
  }
  throw new Error('the standby did not catch up within 20 s');
}

async function pauseReplay(): Promise<void> {
  await standby.sql('postgres', 'SELECT pg_wal_replay_pause()');
  for (let n = 0; n < 200; n++) {
    const [{ state }] = await standby.sql<{ state: string }>('postgres', 'SELECT pg_get_wal_replay_pause_state() AS state');
    if (state === 'paused') return;
    await sleep(10);
  }
  throw new Error('replay did not pause');
}

/** The statements the standby logged from the service's replica pool while `work` ran. */
async function replicaStatements(work: () => Promise<void>): Promise<string[]> {
  const log = join(standby.dir, 'server.log');
  const from = statSync(log).size;
  await work();
  await sleep(200);
  return readFileSync(log, 'utf8').slice(from).split('\n').filter((l) => l.includes('app=guildhall-replica') && /(statement|execute [^:]*):/.test(l));
}

async function newGroup(base: string, game: Game, name: string): Promise<{ id: string; token: string }> {
  const r = await expectStatus(
    http(`${base}/v1/groups`, { method: 'POST', headers: { authorization: `Bearer ${game.key}` }, body: { kind: 'guild', name, visibility: 'public', creatorUserId: `${name}-founder` } }),
    201,
  );
  const token = r.headers.get('x-svc-consistency');
  expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
  return { id: r.body.id, token: token! };
}

describe('a write, then a read sending back its token', () => {
  it('sees the write while replay is paused: the read waits up to READ_REPLICA_WAIT_MS, then the primary serves it', async () => {
    // A lag bound no pause reaches here: the token alone must send these reads to the primary.
    const { i, metrics } = await instance({ READ_REPLICA_MAX_LAG_MS: '3600000', READ_REPLICA_WAIT_MS: String(WAIT_MS) });
    const game = await createGame(i.base, 'paused', new SecretLedger());
    await caughtUp();
    await pauseReplay();
    const answerMs: number[] = [];
    const moved = await delta(metrics, async () => {
      for (let n = 0; n < 5; n++) {
        const g = await newGroup(i.base, game, `paused-${n}`);
        const started = performance.now();
        const r = await http(`${i.base}/v1/groups/${g.id}`, { headers: { authorization: `Bearer ${game.key}`, 'x-svc-consistency': g.token } });
        answerMs.push(performance.now() - started);
        expect(r.status).toBe(200);
        expect(r.body.name).toBe(`paused-${n}`);
      }
    });
    expect(moved).toEqual({ primary_token_wait: 5 });
    for (const ms of answerMs) {
      expect(ms).toBeGreaterThanOrEqual(WAIT_MS - 5);
      expect(ms).toBeLessThan(WAIT_MS + 250);
    }
  });

  it('is served by the replica once it has replayed the write, and always sees it', async () => {
    const { i, metrics } = await instance({ READ_REPLICA_MAX_LAG_MS: '3600000', READ_REPLICA_WAIT_MS: '2000' });
    const game = await createGame(i.base, 'replaying', new SecretLedger());
    await caughtUp();
    const moved = await delta(metrics, async () => {
      for (let n = 0; n < 20; n++) {
        const g = await newGroup(i.base, game, `fresh-${n}`);
        const r = await http(`${i.base}/v1/groups/${g.id}`, { headers: { authorization: `Bearer ${game.key}`, 'x-svc-consistency': g.token } });
        expect(r.status).toBe(200);
        expect(r.body.name).toBe(`fresh-${n}`);
      }
    });
    expect(moved).toEqual({ replica: 20 });
  });

  it('goes to the primary at once with a token that does not open here (an earlier release\'s plain position), and sees the write', async () => {
    const { i, metrics } = await instance({ READ_REPLICA_MAX_LAG_MS: '3600000', READ_REPLICA_WAIT_MS: String(WAIT_MS) });
    const game = await createGame(i.base, 'plain tokens', new SecretLedger());
    await caughtUp();
    await pauseReplay();
    const moved = await delta(metrics, async () => {
      const g = await newGroup(i.base, game, 'plain');
      const [{ lsn }] = await primary.sql<{ lsn: string }>('postgres', 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
      const started = performance.now();
      const r = await http(`${i.base}/v1/groups/${g.id}`, { headers: { authorization: `Bearer ${game.key}`, 'x-svc-consistency': lsn } });
      expect(r.status).toBe(200);
      expect(r.body.name).toBe('plain');
      expect(performance.now() - started).toBeLessThan(WAIT_MS);
    });
    expect(moved).toEqual({ primary_unreadable_token: 1 });
  });
});

describe('a read without a token', () => {
  it('goes to the primary while the replica is more than READ_REPLICA_MAX_LAG_MS behind, and to the replica once it has caught up', async () => {
    const { i, metrics } = await instance({ READ_REPLICA_MAX_LAG_MS: '300' });
    const game = await createGame(i.base, 'lagging', new SecretLedger());
    const auth = { authorization: `Bearer ${game.key}` };
    await caughtUp();
    const fresh = await delta(metrics, async () => {
      await sleep(150);
      expect((await http(`${i.base}/v1/groups`, { headers: auth })).status).toBe(200);
    });
    expect(fresh).toEqual({ replica: 1 });

    await pauseReplay();
    await newGroup(i.base, game, 'unseen-by-replica');
    await sleep(600);
    const lagging = await delta(metrics, async () => {
      const r = await http(`${i.base}/v1/groups`, { headers: auth });
      expect(r.body.items.map((g: { name: string }) => g.name)).toContain('unseen-by-replica');
    });
    expect(lagging).toEqual({ primary_lagging: 1 });

    await standby.sql('postgres', 'SELECT pg_wal_replay_resume()');
    await caughtUp();
    await sleep(150);
    const back = await delta(metrics, async () => {
      const r = await http(`${i.base}/v1/groups`, { headers: auth });
      expect(r.body.items.map((g: { name: string }) => g.name)).toContain('unseen-by-replica');
    });
    expect(back).toEqual({ replica: 1 });
  });
});

describe('the routes that stay on the primary', () => {
  it('never reach the replica (its own log says so), while a replica route does', async () => {
    const { i } = await instance({ READ_REPLICA_MAX_LAG_MS: '3600000' });
    const game = await createGame(i.base, 'primary-only', new SecretLedger());
    const auth = { authorization: `Bearer ${game.key}` };
    const g = await newGroup(i.base, game, 'checked');
    await caughtUp();
    const headers = { ...auth, 'x-svc-consistency': g.token };
    const primaryOnly = await replicaStatements(async () => {
      for (const path of [
        `/v1/permissions/check?groupId=${g.id}&userId=checked-founder&permission=guild.invite`,
        '/v1/events/feed',
        '/v1/whoami',
        `/v1/groups/${g.id}/roles`,
      ]) {
        expect((await http(`${i.base}${path}`, { headers })).status).toBe(200);
      }
      await expectStatus(http(`${i.base}/v1/groups/${g.id}/join`, { method: 'POST', headers, body: { userId: 'joiner' } }), 201);
      await expectStatus(http(`${i.base}/v1/groups/${g.id}`, { method: 'PATCH', headers, body: { name: 'renamed' } }), 200);
    });
    expect(primaryOnly).toEqual([]);

    await caughtUp();
    const replicaRoute = await replicaStatements(async () => {
      expect((await http(`${i.base}/v1/groups/${g.id}/members`, { headers: auth })).status).toBe(200);
    });
    // Beyond the lag check, the route's own read ran there.
    expect(replicaRoute.some((l) => /members/i.test(l) && !/pg_last_wal_replay_lsn/.test(l))).toBe(true);
  });
});
