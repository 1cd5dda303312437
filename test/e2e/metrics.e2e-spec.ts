import { RELEASE } from '../../src/version';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, http, killAll, requireBuild, ROOT, startServerProcess, type Proc } from '../helpers/process';
import { joinOk, postGroup } from '../helpers/groups';
import { listeningPorts, parseExposition, samplesOf, SERVICE_FAMILIES, type Exposition } from '../helpers/metrics';
import { openSse } from '../helpers/sse';
import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';

/**
 * The ports `proc` listens on, read until they are `expected` or 10 s have passed: on a loaded
 * machine /proc was once read empty just after the server answered. A process that exited says why.
 */
async function settledPorts(proc: Proc, expected: number[]): Promise<number[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proc.exit()) throw new Error(`the server exited: ${proc.describe()}`);
    const ports = listeningPorts(proc.pid);
    if (ports.join() === expected.join() || Date.now() > deadline) return ports;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The Prometheus endpoint (docs/observability.md): on METRICS_PORT only, every family with its
 * HELP and TYPE, route labels that are templates and never ids, and nothing listening without it.
 */
describe('metrics', () => {
  let t: TestApp;
  let metricsPort: number;
  let api: string;
  let receiver: RecordingReceiver;
  let game: { gameId: string; key: string };
  let groupId: string;
  const auth = () => bearer(game.key);

  const scrape = async (): Promise<Exposition> => {
    const r = await http(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(r.text);
  };
  const value = (e: Exposition, name: string, labels: Record<string, string> = {}) =>
    e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);

  beforeAll(async () => {
    metricsPort = await freePort();
    receiver = await recordingReceiver();
    t = await startTestApp({
      METRICS_PORT: String(metricsPort),
      WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
      RATE_LIMIT_PER_MINUTE: '60',
      RATE_LIMIT_BURST: '40',
    });
    await t.app.listen(0, '127.0.0.1');
    api = await t.app.getUrl();
    api = api.replace('[::1]', '127.0.0.1');
    game = await newGame(t);
    const hook = await t.http.post('/v1/webhooks').set(auth()).send({ url: receiver.url, events: ['member.joined'] });
    expect(hook.status).toBe(201);
    groupId = (await postGroup(t, auth(), { kind: 'guild', name: 'Metrics', visibility: 'public', creatorUserId: 'alice' })).id;

    const gameStream = await openSse(api, '/v1/events', auth());
    const groupStream = await openSse(api, `/v1/events/${groupId}`, auth());
    const adminStream = await openSse(api, `/v1/admin/games/${game.gameId}/events`, asAdmin);
    for (const user of ['bob', 'carol', 'dave']) await joinOk(t, auth(), groupId, user);
    await gameStream.waitFor(() => gameStream.ids().length >= 3, 10_000, 'three joins on the game stream');
    await adminStream.waitFor(() => adminStream.ids().length >= 3, 10_000, 'three joins on the admin stream');
    expect((await scrape()).samples.find((s) => s.name === 'svc_stream_subscribers' && s.labels.kind === 'admin')?.value).toBe(1);
    for (const s of [gameStream, groupStream, adminStream]) s.close();

    const check = { userId: 'bob', groupId, permission: 'guild.invite' };
    expect((await t.http.get('/v1/permissions/check').query(check).set(auth())).status).toBe(200);
    expect((await t.http.get('/v1/permissions/check').query(check).set(auth())).status).toBe(200);
    expect((await t.http.get('/v1/events/feed').set(auth())).status).toBe(200);
    expect((await t.http.get(`/v1/groups/${groupId}/no-such-thing`).set(auth())).status).toBe(404);
    expect((await t.http.get('/v1/whoami')).status).toBe(401);
    // a duplicate join: 409, a statement error in SQLSTATE class 23 or none, depending on the path taken
    await t.http.post(`/v1/groups/${groupId}/join`).set(auth()).send({ userId: 'bob' });
    // the key's burst of 40 runs out
    const other = await newGame(t, 'limited');
    let refused = 0;
    for (let i = 0; i < 45; i++) if ((await t.http.get('/v1/whoami').set(bearer(other.key))).status === 429) refused++;
    expect(refused).toBeGreaterThan(0);

    // PostgreSQL ends the pool's idle connections, telling each with a 57P01 error: an operator intervention.
    await t.db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'guildhall' AND state = 'idle'`);
    // (a request racing the pool's notice of it may answer 503; the pool then opens new ones)
    for (let i = 0; i < 50 && (await t.http.get(`/v1/groups/${groupId}`).set(auth())).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));

    const deadline = Date.now() + 15_000;
    while (value(await scrape(), 'svc_webhook_attempts_total', { outcome: 'delivered' }) < 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await killAll();
  });

  it('exposes every family with its TYPE and a HELP text, all named svc_', async () => {
    const e = await scrape();

    for (const [family, type] of Object.entries(SERVICE_FAMILIES)) {
      expect({ family, type: e.types.get(family) }).toEqual({ family, type });
      expect(e.help.get(family)?.length ?? 0).toBeGreaterThan(10);
      expect({ family, samples: samplesOf(e, family).length > 0 }).toEqual({ family, samples: true });
    }
    expect([...e.types.keys()].filter((name) => !name.startsWith('svc_'))).toEqual([]);
  });

  it('documents every family of its own in docs/observability.md, and documents none it lacks', async () => {
    const e = await scrape();
    const page = readFileSync(join(ROOT, 'docs/observability.md'), 'utf8');
    // prom-client's default process metrics are documented as a group; the service's own one by one.
    const own = [...e.types.keys()].filter((name) => !/^svc_(process|nodejs)_/.test(name) || name === 'svc_nodejs_eventloop_utilization_ratio');
    const tabled = [...page.matchAll(/^\| `(svc_[a-z_]+)` \| (counter|gauge|histogram) \|/gm)].map((m) => [m[1], m[2]]);

    expect(tabled.length).toBeGreaterThan(20);
    expect(own.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
    expect(tabled.filter(([name, type]) => e.types.get(name) !== type)).toEqual([]);
  });

  it('counts what the requests above did', async () => {
    const e = await scrape();

    expect(value(e, 'svc_build_info', { version: RELEASE, node: process.version })).toBe(1);
    expect(value(e, 'svc_http_requests_total', { route: '/v1/groups/:id/join', method: 'POST', status_class: '2xx' })).toBe(3);
    expect(value(e, 'svc_http_requests_total', { route: '/v1/whoami', status_class: '4xx' })).toBeGreaterThan(1);
    expect(value(e, 'svc_http_request_duration_seconds_count', { route: '/v1/permissions/check', status_class: '2xx' })).toBe(2);
    expect(value(e, 'svc_permission_cache_lookups_total', { result: 'hit' })).toBeGreaterThanOrEqual(1);
    expect(value(e, 'svc_permission_cache_lookups_total', { result: 'miss' })).toBeGreaterThanOrEqual(1);
    expect(value(e, 'svc_api_key_cache_lookups_total', { result: 'hit' })).toBeGreaterThan(10);
    expect(value(e, 'svc_api_key_cache_lookups_total', { result: 'miss' })).toBeGreaterThanOrEqual(1);
    expect(value(e, 'svc_rate_limit_refusals_total', { bucket: 'key' })).toBeGreaterThan(0);
    expect(value(e, 'svc_stream_frames_sent_total', { kind: 'game' })).toBeGreaterThanOrEqual(3);
    expect(value(e, 'svc_stream_frames_sent_total', { kind: 'group' })).toBeGreaterThanOrEqual(3);
    expect(value(e, 'svc_stream_frames_sent_total', { kind: 'admin' })).toBeGreaterThanOrEqual(3);
    expect(value(e, 'svc_webhook_attempts_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(3);
    expect(value(e, 'svc_db_pool_max')).toBe(5);
    expect(value(e, 'svc_db_pool_connections')).toBeGreaterThan(0);
    expect(value(e, 'svc_db_pool_wait_seconds_count', { outcome: 'acquired' })).toBeGreaterThan(0);
    expect(value(e, 'svc_db_unavailable')).toBe(0);
    expect(value(e, 'svc_db_statement_errors_total', { sqlstate_class: '57' })).toBeGreaterThan(0);
    expect(value(e, 'svc_feed_horizon_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(value(e, 'svc_webhook_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('labels routes by template and unknown paths by one value, never by an id', async () => {
    const e = await scrape();
    const routes = new Set(samplesOf(e, 'svc_http_requests_total').map((s) => s.labels.route));

    expect(routes).toContain('/v1/groups/:id/join');
    expect(routes).toContain('/v1/events/feed');
    expect(routes).toContain('unmatched');
    for (const route of routes) expect(route === 'unmatched' || route.startsWith('/')).toBe(true);
    const values = e.samples.flatMap((s) => Object.values(s.labels));
    for (const id of [game.gameId, groupId, 'alice', 'bob', game.key.split('.')[0]]) {
      expect(values.filter((v) => v.includes(id))).toEqual([]);
    }
  });

  it('leaves open live streams to the stream families: Fastify never sees them answered', async () => {
    const e = await scrape();

    expect(value(e, 'svc_http_requests_total', { route: '/v1/events' })).toBe(0);
    expect(value(e, 'svc_stream_subscribers')).toBe(0);
  });

  it('is not served on the API port, and its own port serves nothing else', async () => {
    expect((await http(`${api}/metrics`)).status).toBe(404);
    expect((await http(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404);
    expect((await http(`http://127.0.0.1:${metricsPort}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  describe('the built server', () => {
    beforeAll(() => requireBuild());

    it('listens on PORT alone without METRICS_PORT, and on both with it', async () => {
      const off = await startServerProcess(t.db.url, { WEBHOOK_WORKER_ENABLED: 'false' });
      expect(await settledPorts(off.proc, [off.port])).toEqual([off.port]);

      const port = await freePort();
      const on = await startServerProcess(t.db.url, { WEBHOOK_WORKER_ENABLED: 'false', METRICS_PORT: String(port) });
      const both = [on.port, port].sort((a, b) => a - b);
      expect(await settledPorts(on.proc, both)).toEqual(both);
      expect((await http(`http://127.0.0.1:${port}/metrics`)).text).toContain('# TYPE svc_http_requests_total counter');
      await killAll();
    });

    it('refuses a METRICS_PORT that is taken, in one line naming it', async () => {
      const taken = await startServerProcess(t.db.url, { WEBHOOK_WORKER_ENABLED: 'false' });
      const refused = await startServerProcess(t.db.url, { WEBHOOK_WORKER_ENABLED: 'false', METRICS_PORT: String(taken.port) }).catch(
        (err: Error) => err,
      );
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toMatch(new RegExp(`guildhall: METRICS_PORT ${taken.port} is already in use`));
      await killAll();
    });
  });
});
