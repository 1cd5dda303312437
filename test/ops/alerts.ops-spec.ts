import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { alertTitle, AlertWatch, type Episode } from '../helpers/alert-watch';
import { freePort, http, killAll, MAIN_JS, requireBuild, ROOT, serverEnv, sleep, spawnNode, TEST_ADMIN_TOKEN, waitForHttp, type Proc } from '../helpers/process';
import { startPrometheus, type RunningPrometheus } from '../helpers/prometheus';
import { quickRules, type Rewrites } from '../helpers/quick-rules';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';
import { clusterAt, initCluster, removeScratch, run, scratchDir, serverFolder, type Cluster } from '../reliability/helpers/pg-cluster';

/**
 * Every rule of deploy/prometheus/alerts.yml made to fire by a real fault and to resolve once it is
 * mended, as a real Prometheus sees it (GET /api/v1/alerts: pending, then firing, then gone). Two
 * built instances run on a PostgreSQL primary of the test's own, which it stops, with a streaming
 * standby as their read replica, which it pauses. The rules are the deployed expressions with
 * shorter `for:` durations, thresholds and windows (quick-rules.ts), so the faults last seconds.
 * Each step also names the alerts its fault may raise besides its own; any other alert fails it.
 */

const DEPLOYED_RULES = join(ROOT, 'deploy/prometheus/alerts.yml');
const FOR = '4s';
const REWRITES: Rewrites = {
  GuildhallWebhookBacklogGrowing: [['> 100', '> 10'], ['[10m]', '[30s]']],
  GuildhallWebhookDeliveryLate: [['> 600', '> 5']],
  GuildhallDatabaseUnavailable: [],
  GuildhallFeedLagging: [['> 30', '> 3']],
  GuildhallServerErrors: [['[5m]', '[10s]']],
  GuildhallSlowRequests: [['[5m]', '[10s]']],
  GuildhallInstanceDown: [],
  GuildhallAllInstancesDown: [],
  GuildhallWebhookEndpointDisabled: [],
  GuildhallDatabasePoolSaturated: [],
  // Above the lag's resolution without reads: the time since the replica was last seen caught up, up to a scrape apart.
  GuildhallReadReplicaLagging: [['> 30', '> 8']],
};
/** A scrape waits up to 2 s for the figures it reads from the database (a saturated pool holds them): a shorter interval, which is also the scrape's timeout, would fail it. */
const SCRAPE = '3s';
const EVALUATE = '1s';
const DB = 'guildhall';
/** The instance the pool step saturates: its pool, and how long its statements may wait on a lock. */
const SMALL_POOL = 3;
const STATEMENT_TIMEOUT_MS = 2_000;
const STAGE_TIMEOUT_MS = 60_000;

interface Instance {
  port: number;
  metricsPort: number;
  url: string;
  target: string;
  env: Record<string, string>;
  proc?: Proc;
}

interface Fault {
  /** What the step does, and what mends it (for the summary). */
  cause: string;
  cure: string;
  /** The alerts it must raise, then resolve. */
  raises: { name: string; labels?: Record<string, string> }[];
  /** The alerts its fault may raise besides (as a consequence, named in the docs). */
  mayRaise?: string[];
  start(): Promise<void>;
  mend(): Promise<void>;
}

let dir: string;
let primary: Cluster;
let standby: Cluster;
let prometheus: RunningPrometheus | undefined;
let watch: AlertWatch | undefined;
let a: Instance;
let b: Instance;
let sink: RecordingReceiver;
let flaky: RecordingReceiver;
let flakyStatus = 503;
let key: string;
let users = 0;
let healthySince = 0;
const summary: string[] = [];

const auth = () => ({ authorization: `Bearer ${key}` });
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function instance(env: Record<string, string>): Promise<Instance> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  return { port, metricsPort, url: `http://127.0.0.1:${port}`, target: `127.0.0.1:${metricsPort}`, env };
}

/** Starts (or starts again) an instance on its own ports, so Prometheus's target stays the same. */
async function boot(i: Instance): Promise<void> {
  const proc = spawnNode(
    MAIN_JS,
    [],
    serverEnv(primary.url(DB), i.port, {
      METRICS_PORT: String(i.metricsPort),
      DATABASE_READ_URL: standby.url(DB),
      WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
      LOG_LEVEL: 'warn',
      ...i.env,
    }),
  );
  // A bound for a busy machine: two shared cores boot one in 5 to 20 s.
  await waitForHttp(i.url, 60_000, proc);
  i.proc = proc;
}

/** A ban through `i`: an event, and a delivery to each endpoint. */
async function banned(i: Instance): Promise<void> {
  const r = await http(`${i.url}/v1/bans`, { method: 'POST', headers: auth(), body: { userId: `user-${++users}` }, timeoutMs: 15_000 });
  if (r.status !== 201) throw new Error(`POST ${i.url}/v1/bans answered ${r.status}`);
}

/** Calls `work` every `everyMs` without waiting for it, until stopped; stop() waits for the calls made. */
function every(everyMs: number, work: () => Promise<unknown>): { stop(): Promise<void> } {
  const calls: Promise<unknown>[] = [];
  const timer = setInterval(() => calls.push(work().catch(() => undefined)), everyMs);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.all(calls);
    },
  };
}

/** A session on the service's database that the step holds (a transaction open, a lock). */
async function session(): Promise<Client> {
  const c = new Client({ connectionString: primary.url(DB) });
  await c.connect();
  return c;
}

/**
 * Runs the faults together: each starts, its alerts are awaited firing, it is mended, and they are
 * awaited gone. Every alert seen meanwhile must be one a fault raises or may raise, and is awaited
 * gone too, so that the next step starts from quiet.
 */
async function provoke(...faults: Fault[]): Promise<void> {
  const since = Date.now();
  const own = new Set<Episode>();
  await Promise.all(
    faults.map(async (f) => {
      const causedAt = Date.now();
      await f.start();
      await Promise.all(f.raises.map((r) => watch!.reach(r.name, r.labels ?? {}, since, 'firing', STAGE_TIMEOUT_MS)));
      const mendedAt = Date.now();
      await f.mend();
      const episodes = await Promise.all(f.raises.map((r) => watch!.reach(r.name, r.labels ?? {}, since, 'gone', STAGE_TIMEOUT_MS)));
      for (const e of episodes) {
        own.add(e);
        expect({ alert: alertTitle(e), pendingFirst: e.pending !== undefined && e.pending < e.firing!, goneAfterMend: e.gone! >= mendedAt }).toEqual({
          alert: alertTitle(e),
          pendingFirst: true,
          goneAfterMend: true,
        });
        const at = (t: number | undefined, from: number) => (t === undefined ? 'never' : `+${seconds(t - from)}`);
        summary.push(`${alertTitle(e)}: pending ${at(e.pending, causedAt)}, firing ${at(e.firing, causedAt)} after ${f.cause}; gone ${at(e.gone, mendedAt)} after ${f.cure}`);
      }
    }),
  );
  const others = watch!.episodes.filter((e) => (e.pending ?? e.firing)! >= since && !own.has(e));
  const allowed = new Set(faults.flatMap((f) => f.mayRaise ?? []));
  expect(others.map(alertTitle).filter((_, i) => !allowed.has(others[i].name))).toEqual([]);
  for (const e of others) {
    await watch!.ended(e, STAGE_TIMEOUT_MS);
    const at = (t: number | undefined) => (t === undefined ? 'never' : `+${seconds(t - since)}`);
    summary.push(`  and, as a consequence, ${alertTitle(e)}: pending ${at(e.pending)}, firing ${at(e.firing)}, gone ${at(e.gone)} after the step began`);
  }
}

beforeAll(async () => {
  requireBuild();
  const started = Date.now();
  dir = scratchDir();
  primary = await initCluster('pg15', join(dir, 'primary'), { wal_level: 'replica', max_wal_senders: '4' });
  await primary.start();
  await primary.sql('postgres', `CREATE DATABASE ${DB}`);
  const standbyDir = serverFolder(join(dir, 'standby'));
  // A fast checkpoint: a spread one paces the new database's pages over minutes.
  await run('pg15', 'pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream', '--no-sync', '--checkpoint=fast'], 'server');
  // Back to streaming within half a second of the primary's return (5 s by default).
  standby = clusterAt('pg15', standbyDir, await freePort(), { hot_standby: 'on', wal_retrieve_retry_interval: "'500ms'" });
  await standby.start();
  const clustersAt = Date.now();

  sink = await recordingReceiver();
  flaky = await recordingReceiver(() => flakyStatus);
  // A runs the only webhook worker; B has the small pool.
  a = await instance({});
  b = await instance({ WEBHOOK_WORKER_ENABLED: 'false', DATABASE_POOL_MAX: String(SMALL_POOL), DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) });
  // A applies the migrations.
  await boot(a);
  await boot(b);
  const instancesAt = Date.now();
  const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const game = await http(`${a.url}/v1/admin/games`, { method: 'POST', headers: admin, body: { name: 'alerts' } });
  key = (await http(`${a.url}/v1/admin/games/${game.body.id}/api-keys`, { method: 'POST', headers: admin })).body.key;
  expect((await http(`${a.url}/v1/webhooks`, { method: 'POST', headers: auth(), body: { url: sink.url, events: ['game.user.banned'] } })).status).toBe(201);

  const rules = join(dir, 'alerts.quick.json');
  writeFileSync(rules, quickRules(DEPLOYED_RULES, FOR, REWRITES));
  prometheus = await startPrometheus([a.target, b.target], [rules], SCRAPE, EVALUATE);
  watch = new AlertWatch(prometheus);
  for (const deadline = Date.now() + 30_000; (await prometheus.query('svc_db_replica_lag_seconds >= 0')).length < 2; await sleep(250)) {
    if (Date.now() > deadline) throw new Error(`prometheus did not scrape both instances within 30 s:\n${prometheus.log().slice(-2000)}`);
  }
  // Before its first scrapes Prometheus has no instance up: the all-down alert may have begun.
  for (const deadline = Date.now() + 15_000; watch.active().length; await sleep(200)) {
    if (Date.now() > deadline) throw new Error(`alerts active with both instances scraped: ${watch.active().join(', ')}`);
  }
  healthySince = Date.now();
  summary.push(`setup: PostgreSQL primary and standby ${seconds(clustersAt - started)}, two instances ${seconds(instancesAt - clustersAt)}, Prometheus scraping both ${seconds(healthySince - instancesAt)}`);
}, 150_000);

afterAll(async () => {
  await watch?.stop();
  await prometheus?.stop();
  await killAll();
  await Promise.all([sink, flaky].map((r) => r?.close()));
  await standby?.stop('immediate').catch(() => undefined);
  await primary?.stop('immediate').catch(() => undefined);
  if (dir) removeScratch(dir);
  if (summary.length) process.stdout.write(`alerts, as Prometheus showed them (for: ${FOR}, scrapes every ${SCRAPE}, evaluations every ${EVALUATE}):\n${summary.map((l) => `  ${l}`).join('\n')}\n`);
}, 90_000);

it('raises nothing while both instances are healthy', async () => {
  // Long enough for a pending alert to fire: a scrape, an evaluation and the quick `for`.
  await sleep(6_000);

  expect(watch!.episodes.filter((e) => (e.pending ?? e.firing)! >= healthySince).map(alertTitle)).toEqual([]);
});

it('an instance killed: its instance-down alert; with the only webhook worker gone, the backlog grows and deliveries are late', async () => {
  let writer: { stop(): Promise<void> } | undefined;
  await provoke({
    cause: 'SIGKILL of A (the webhook worker) and a ban every 200 ms on B',
    cure: 'restarting A',
    raises: [{ name: 'GuildhallInstanceDown', labels: { instance: a.target } }, { name: 'GuildhallWebhookBacklogGrowing' }, { name: 'GuildhallWebhookDeliveryLate' }],
    start: async () => {
      await a.proc!.kill();
      writer = every(200, () => banned(b));
    },
    mend: async () => {
      await writer!.stop();
      await boot(a);
    },
  });
});

it('every instance killed: the all-instances-down alert', async () => {
  await provoke({
    cause: 'SIGKILL of A and B',
    cure: 'restarting both',
    raises: [{ name: 'GuildhallAllInstancesDown' }],
    mayRaise: ['GuildhallInstanceDown'],
    start: async () => {
      await Promise.all([a.proc!.kill(), b.proc!.kill()]);
    },
    mend: async () => {
      await Promise.all([boot(a), boot(b)]);
    },
  });
});

it('at once: a transaction held open (feed lagging), an endpoint failing 25 times (disabled), replay paused on the replica (lagging)', async () => {
  let holder: Client | undefined;
  let flakyId = '';
  await provoke(
    {
      cause: 'a transaction held open, then one event written',
      cure: 'committing it',
      raises: [{ name: 'GuildhallFeedLagging' }],
      // Webhook deliveries are taken up from the feed below its horizon too: the joins of the step
      // beside this one wait behind the open transaction, due and growing older.
      mayRaise: ['GuildhallWebhookBacklogGrowing', 'GuildhallWebhookDeliveryLate'],
      start: async () => {
        holder = await session();
        await holder.query('BEGIN');
        await holder.query('SELECT pg_current_xact_id()');
        await banned(a);
      },
      mend: async () => {
        await holder!.query('COMMIT');
        await holder!.end();
      },
    },
    {
      cause: '25 deliveries to an endpoint answering 503',
      cure: 'healing its receiver and re-enabling it',
      raises: [{ name: 'GuildhallWebhookEndpointDisabled' }],
      start: async () => {
        flakyStatus = 503;
        // Joins, which no other endpoint receives: the worker sends the 25 at once, none waits its turn.
        const created = await http(`${a.url}/v1/webhooks`, { method: 'POST', headers: auth(), body: { url: flaky.url, events: ['member.joined'] } });
        expect(created.status).toBe(201);
        flakyId = created.body.id;
        const group = await http(`${a.url}/v1/groups`, { method: 'POST', headers: auth(), body: { kind: 'guild', name: 'joined', visibility: 'public' } });
        for (let i = 0; i < 25; i++) {
          const joined = await http(`${a.url}/v1/groups/${group.body.id}/join`, { method: 'POST', headers: auth(), body: { userId: `joiner-${i}` } });
          expect(joined.status).toBe(201);
        }
      },
      mend: async () => {
        flakyStatus = 200;
        const patched = await http(`${a.url}/v1/webhooks/${flakyId}`, { method: 'PATCH', headers: auth(), body: { disabled: false } });
        expect(patched.status).toBe(200);
      },
    },
    {
      cause: 'replay paused on the standby, then one write',
      cure: 'resuming replay',
      raises: [{ name: 'GuildhallReadReplicaLagging' }],
      start: async () => {
        await standby.sql('postgres', 'SELECT pg_wal_replay_pause()');
        await banned(a);
      },
      mend: async () => {
        await standby.sql('postgres', 'SELECT pg_wal_replay_resume()');
      },
    },
  );
});

it('the database stopped: both instances find it unavailable and answer 503', async () => {
  let load: { stop(): Promise<void> } | undefined;
  await provoke({
    cause: 'the primary stopped, a group created every 250 ms on each instance',
    cure: 'starting the primary again',
    raises: [
      { name: 'GuildhallDatabaseUnavailable', labels: { instance: a.target } },
      { name: 'GuildhallDatabaseUnavailable', labels: { instance: b.target } },
      { name: 'GuildhallServerErrors' },
    ],
    // The standby streams again a moment after the primary's return; until then it is behind.
    mayRaise: ['GuildhallReadReplicaLagging'],
    start: async () => {
      await primary.stop('fast');
      // Groups: their events make no webhook deliveries, which would pile up behind the outage.
      load = every(250, () => Promise.all([a, b].map((i) => http(`${i.url}/v1/groups`, { method: 'POST', headers: auth(), body: { kind: 'guild', name: 'outage' } }))));
    },
    mend: async () => {
      await primary.start();
    },
  }).finally(() => load?.stop());
});

it('a pool saturated: requests wait for a connection, and are slow', async () => {
  let locker: Client | undefined;
  let load: { stop(): Promise<void> } | undefined;
  await provoke({
    cause: `a lock on groups and a group created on B (pool of ${SMALL_POOL}) every 250 ms`,
    cure: 'releasing the lock',
    raises: [{ name: 'GuildhallDatabasePoolSaturated', labels: { instance: b.target } }, { name: 'GuildhallSlowRequests' }],
    // Each statement gives up on the lock after B's statement timeout (answered 503, the database
    // counted unavailable), which frees its connection for the next waiting request.
    mayRaise: ['GuildhallServerErrors', 'GuildhallDatabaseUnavailable'],
    start: async () => {
      locker = await session();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE groups IN EXCLUSIVE MODE');
      load = every(250, () => http(`${b.url}/v1/groups`, { method: 'POST', headers: auth(), body: { kind: 'guild', name: 'waiting' }, timeoutMs: 45_000 }));
    },
    mend: async () => {
      await locker!.query('COMMIT');
      await locker!.end();
      await load!.stop();
    },
  });
});

it('leaves nothing pending or firing', () => {
  expect(watch!.active()).toEqual([]);
});
