import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_FAMILIES } from '../helpers/metrics';
import { freePort, http, killAll, requireBuild, ROOT, sleep, startServerProcess, TEST_ADMIN_TOKEN, type RunningServer } from '../helpers/process';
import { promtool, startPrometheus, type RunningPrometheus } from '../helpers/prometheus';
import { openSse, type SseStream } from '../helpers/sse';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';

/**
 * What an SRE gets (docs/observability.md): two built instances on one database, scraped by a real
 * Prometheus under a mixed load, with the alert rules loaded. Every metric family must have data
 * from both instances, every query of the Grafana dashboard must return series, the rules must pass
 * promtool, /metrics must not be on the API port, and the series must not grow with the data.
 */
const PROMETHEUS_DIR = join(ROOT, 'deploy/prometheus');
const DASHBOARD = join(ROOT, 'deploy/grafana/guildhall.json');
/** prom-client's process families labelled by a kind of GC, handle or resource: Node's kinds, a bounded set. */
const PROCESS_KINDS = /^svc_nodejs_(gc_duration_seconds|active_handles|active_resources|active_requests)(_bucket|_sum|_count|_total)?$/;
/** Grafana's variables in the dashboard's queries, as Grafana would fill them in. */
const GRAFANA_VARIABLES: Record<string, string> = { $__rate_interval: '1m' };

interface Instance extends RunningServer {
  metricsPort: number;
  target: string;
}

describe('metrics under load, through a real Prometheus', () => {
  let db: TestDatabase;
  let a: Instance;
  let b: Instance;
  let prometheus: RunningPrometheus | undefined;
  let receiver: RecordingReceiver;
  let failing: RecordingReceiver;
  let refusing: RecordingReceiver;
  const streams: SseStream[] = [];
  let gameId: string;
  let key: string;

  const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const auth = () => ({ authorization: `Bearer ${key}` });
  const instance = (i: number) => (i % 2 ? b : a);

  async function start(extra: Record<string, string>): Promise<Instance> {
    const metricsPort = await freePort();
    const s = await startServerProcess(db.url, { METRICS_PORT: String(metricsPort), WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', ...extra });
    return { ...s, metricsPort, target: `127.0.0.1:${metricsPort}` };
  }

  async function ok(url: string, init: Parameters<typeof http>[1], status: number): Promise<Record<string, any>> {
    const r = await http(url, init);
    if (r.status !== status) throw new Error(`${init?.method ?? 'GET'} ${url}: ${r.status} ${r.text}`);
    return r.body;
  }

  /**
   * One pass of the load over `n` new groups and users, alternating instances: groups created and
   * joined (events, webhook deliveries, stream frames), permission checks (a miss, then a hit), reads
   * by id, feed pages, unknown paths and ids (404), a missing key (401). The same mix every time, so
   * the label combinations of a later pass are those of the first.
   */
  async function pass(prefix: string, n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const base = instance(i).url;
      const group = await ok(
        `${base}/v1/groups`,
        { method: 'POST', headers: auth(), body: { kind: 'guild', name: `${prefix} ${i}`, visibility: 'public', creatorUserId: `${prefix}-owner-${i}` } },
        201,
      );
      await ok(`${base}/v1/groups/${group.id}/join`, { method: 'POST', headers: auth(), body: { userId: `${prefix}-user-${i}` } }, 201);
      const check = `${base}/v1/permissions/check?userId=${prefix}-user-${i}&groupId=${group.id}&permission=guild.invite`;
      await ok(check, { headers: auth() }, 200);
      await ok(check, { headers: auth() }, 200);
      await ok(`${base}/v1/groups/${group.id}`, { headers: auth() }, 200);
      await ok(`${base}/v1/groups/${group.id}/members`, { headers: auth() }, 200);
      await ok(`${base}/v1/groups/${group.id}/no-such-route`, { headers: auth() }, 404);
      await ok(`${base}/v1/groups/${randomUUID()}`, { headers: auth() }, 404);
      await ok(`${base}/v1/whoami`, {}, 401);
      if (i % 5 === 0) await ok(`${base}/v1/events/feed?limit=50`, { headers: auth() }, 200);
    }
  }

  /** Waits until Prometheus has scraped both instances, up, `times` more times (every second). */
  async function scrapes(times: number): Promise<void> {
    const stamp = async () => {
      const up = await prometheus!.query('timestamp(up{job="guildhall"} == 1)');
      return up.length === 2 ? Math.min(...up.map((s) => Number(s.value[1]))) : Number.NaN;
    };
    const deadline = Date.now() + 30_000;
    let first = await stamp();
    while (Number.isNaN(first) && Date.now() < deadline) {
      await sleep(250);
      first = await stamp();
    }
    while (!((await stamp()) >= first + times) && Date.now() < deadline) await sleep(250);
    if (Date.now() >= deadline) throw new Error(`prometheus did not scrape both instances ${times} times within 30 s:\n${prometheus!.log().slice(-2000)}`);
  }

  beforeAll(async () => {
    requireBuild();
    db = await createTestDatabase();
    receiver = await recordingReceiver();
    failing = await recordingReceiver(() => 503);
    refusing = await recordingReceiver(() => 410);
    // A's limiter lets the load through (1000 a second per key) but not bursts of 100 at once.
    a = await start({ RATE_LIMIT_PER_MINUTE: '60000', RATE_LIMIT_BURST: '20' });
    b = await start({});
    prometheus = await startPrometheus([a.target, b.target], [join(PROMETHEUS_DIR, 'alerts.yml')]);
    // Its targets reach the scrape loop a few seconds after it is ready.
    await scrapes(1);

    const game = await ok(`${a.url}/v1/admin/games`, { method: 'POST', headers: admin, body: { name: 'ops' } }, 201);
    gameId = game.id;
    key = (await ok(`${a.url}/v1/admin/games/${gameId}/api-keys`, { method: 'POST', headers: admin }, 201)).key;
    for (const r of [receiver, failing, refusing]) {
      await ok(`${b.url}/v1/webhooks`, { method: 'POST', headers: auth(), body: { url: r.url, events: ['member.joined', 'group.created'] } }, 201);
    }
    const watched = await ok(`${a.url}/v1/groups`, { method: 'POST', headers: auth(), body: { kind: 'guild', name: 'watched', visibility: 'public', creatorUserId: 'w' } }, 201);
    streams.push(await openSse(b.url, '/v1/events', auth()));
    streams.push(await openSse(a.url, `/v1/events/${watched.id}`, auth()));
    streams.push(await openSse(a.url, `/v1/admin/games/${gameId}/events`, admin));

    // PostgreSQL ends the idle connections of both pools, each with a 57P01 error (SQLSTATE class 57).
    // An instance counts one only if a connection of its pool is idle at that instant: each reads
    // first, and the ending is repeated until both have counted one (once, in a rehearsal of CI,
    // one instance had none idle).
    const countedEnded = async (i: Instance) => /svc_db_statement_errors_total\{[^}]*sqlstate_class="57"/.test((await http(`http://${i.target}/metrics`)).text);
    for (let round = 0; round < 5 && !(await countedEnded(a) && (await countedEnded(b))); round++) {
      await Promise.all([a, b].map((i) => ok(`${i.url}/v1/groups/${watched.id}`, { headers: auth() }, 200)));
      await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'guildhall' AND state = 'idle'`);
      await sleep(500);
    }

    await pass('first', 20);
    await ok(`${a.url}/v1/groups/${watched.id}/join`, { method: 'POST', headers: auth(), body: { userId: 'stream-watcher' } }, 201);
    // A key of its own, so the load's key keeps its bucket: bursts of 100 until A refuses some.
    const greedy = (await ok(`${a.url}/v1/admin/games/${gameId}/api-keys`, { method: 'POST', headers: admin }, 201)).key as string;
    let refused = 0;
    for (let burst = 0; burst < 20 && !refused; burst++) {
      const answers = await Promise.all(Array.from({ length: 100 }, () => http(`${a.url}/v1/whoami`, { headers: { authorization: `Bearer ${greedy}` } })));
      refused = answers.filter((r) => r.status === 429).length;
    }
    expect(refused).toBeGreaterThan(0);
    // Until the deliveries the assertions count have happened, a refusing endpoint's 25th failure
    // (which disables it) included: on a slow machine that comes well after its fifth.
    const disabled = async () => (await db.query(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE disabled_at IS NOT NULL`))[0].n as number;
    const deadline = Date.now() + 30_000;
    while ((receiver.received.length < 20 || failing.received.length < 5 || refusing.received.length < 5 || (await disabled()) < 1) && Date.now() < deadline) await sleep(200);
    await scrapes(3);
  });

  afterAll(async () => {
    for (const s of streams) s.close();
    await prometheus?.stop();
    await killAll();
    await Promise.all([receiver, failing, refusing].map((r) => r?.close()));
    await db?.drop();
  });

  it('scrapes both instances, each up', async () => {
    const up = await prometheus!.query('up{job="guildhall"}');

    expect(up.map((s) => [s.metric.instance, s.value[1]]).sort()).toEqual([[a.target, '1'], [b.target, '1']].sort());
  });

  it.each(Object.entries(SERVICE_FAMILIES))('has data for %s (%s) from both instances', async (family, type) => {
    const name = type === 'histogram' ? `${family}_count` : family;
    const perInstance = await prometheus!.query(`count by (instance) (${name}{job="guildhall"})`);

    expect(perInstance.map((s) => s.metric.instance).sort()).toEqual([a.target, b.target].sort());
  });

  it('saw the load: requests by template, frames, deliveries by outcome, cache hits, refusals, statement errors', async () => {
    const value = async (expr: string) => Number((await prometheus!.query(expr))[0]?.value[1] ?? 0);

    expect(await value('sum(svc_http_requests_total{route="/v1/groups/:id/join",status_class="2xx"})')).toBeGreaterThanOrEqual(21);
    expect(await value('sum(svc_http_requests_total{route="unmatched",status_class="4xx"})')).toBeGreaterThanOrEqual(20);
    expect(await value('sum(svc_stream_subscribers)')).toBe(3);
    expect(await value('sum(svc_stream_frames_sent_total{kind="admin"})')).toBeGreaterThan(0);
    expect(await value('sum(svc_stream_frames_sent_total{kind="group"})')).toBeGreaterThan(0);
    expect(await value('sum(svc_webhook_attempts_total{outcome="delivered"})')).toBeGreaterThan(0);
    expect(await value('sum(svc_webhook_attempts_total{outcome="retry"})')).toBeGreaterThan(0);
    expect(await value('sum(svc_webhook_attempts_total{outcome="failed"})')).toBeGreaterThan(0);
    // the 503 and 410 receivers fail 25 times in a row: their endpoints are disabled, their deliveries muted
    expect(await value('max(svc_webhook_endpoints_disabled{reason="failures"})')).toBeGreaterThanOrEqual(1);
    expect(await value('max(svc_webhook_endpoints_disabled{reason="operator"})')).toBe(0);
    expect(await value('max(svc_webhook_deliveries_pending{state="muted"})')).toBeGreaterThan(0);
    expect(await value('sum(svc_permission_cache_lookups_total{result="hit"})')).toBeGreaterThanOrEqual(20);
    expect(await value('sum(svc_rate_limit_refusals_total{bucket="key"})')).toBeGreaterThan(0);
    expect(await value('sum(svc_db_statement_errors_total{sqlstate_class="57"})')).toBeGreaterThan(0);
    expect(await value('max(svc_db_unavailable)')).toBe(0);
  });

  it('answers every query of the Grafana dashboard with series', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { title: string; targets?: { expr: string }[] }[] };
    const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
    expect(queries.length).toBeGreaterThan(20);
    const empty: string[] = [];
    for (const { panel, expr } of queries) {
      const filled = Object.entries(GRAFANA_VARIABLES).reduce((e, [name, v]) => e.split(name).join(v), expr);
      expect(filled).not.toMatch(/\$\w/);
      if (!(await prometheus!.query(filled)).length) empty.push(`${panel}: ${expr}`);
    }
    expect(empty).toEqual([]);
  });

  it('loads the alert rules, and evaluates each without error; none fires on a healthy service', async () => {
    const { groups } = await prometheus!.api<{ groups: { rules: { name: string; health: string; state: string; lastError?: string }[] }[] }>('rules');
    const rules = groups.flatMap((g) => g.rules);

    expect(rules.map((r) => r.name).sort()).toEqual([
      'GuildhallAllInstancesDown',
      'GuildhallDatabasePoolSaturated',
      'GuildhallDatabaseUnavailable',
      'GuildhallFeedLagging',
      'GuildhallInstanceDown',
      'GuildhallReadReplicaLagging',
      'GuildhallServerErrors',
      'GuildhallSlowRequests',
      'GuildhallWebhookBacklogGrowing',
      'GuildhallWebhookDeliveryLate',
      'GuildhallWebhookEndpointDisabled',
    ]);
    expect(rules.filter((r) => r.health !== 'ok')).toEqual([]);
    expect(rules.filter((r) => r.state === 'firing')).toEqual([]);
  });

  it('passes promtool: the rules, their unit tests, and the example configuration', async () => {
    for (const args of [['check', 'rules', 'alerts.yml'], ['test', 'rules', 'alerts.test.yml'], ['check', 'config', 'prometheus.yml']]) {
      const r = await promtool(args, PROMETHEUS_DIR);
      expect({ args, code: r.code, output: r.code ? r.output : '' }).toEqual({ args, code: 0, output: '' });
    }
  });

  it('serves /metrics on METRICS_PORT only, never on the API port', async () => {
    for (const s of [a, b]) {
      expect((await http(`${s.url}/metrics`)).status).toBe(404);
      expect((await http(`http://${s.target}/metrics`)).status).toBe(200);
    }
  });

  it('keeps the series count flat when 100 more groups and users are used', async () => {
    const series = async () => new Set((await prometheus!.query('{job="guildhall"}')).map((s) => JSON.stringify(s.metric)));
    const before = await series();

    await pass('second', 100);
    await scrapes(3);

    const after = await series();
    const added = [...after].filter((s) => !before.has(s)).map((s) => JSON.parse(s) as Record<string, string>);
    const newNames = [...new Set(added.map((m) => m.__name__))];
    process.stdout.write(`series under load: ${before.size} after the first pass, ${after.size} after 100 more groups and users; new: ${added.length} (${newNames.join(', ') || 'none'})\n`);
    // None of the service's own; prom-client's process metrics may meet a new kind of GC or of
    // handle (a few series each, bounded by Node's kinds, never by the data).
    expect(newNames.filter((name) => !PROCESS_KINDS.test(name))).toEqual([]);
    expect(added.length).toBeLessThanOrEqual(50);
  });
});
