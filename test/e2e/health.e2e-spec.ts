import { RELEASE } from '../../src/version';
import { DataSource } from 'typeorm';
import { HealthService } from '../../src/health/health.service';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

describe('health routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ DATABASE_POOL_MAX: '2' });
  });
  afterAll(() => t.close());

  it('GET / answers name and the constant version 0.0.0 without credentials', async () => {
    const r = await t.http.get('/');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: 'guildhall', version: '0.0.0', release: RELEASE });
  });

  it('GET /healthz reports ok with the database and the worker heartbeat', async () => {
    const r = await t.http.get('/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', db: { ok: true }, webhookWorker: { ok: true } });
    expect(new Date(r.body.timestamp).toISOString()).toBe(r.body.timestamp);
  });

  it('GET /healthz reports the load: connections in use and waiting, and saturated while requests wait for one', async () => {
    const quiet = await t.http.get('/healthz');
    expect(quiet.body.load).toEqual({ saturated: false, dbConnectionsInUse: expect.any(Number), dbConnectionsMax: 2, waitingForConnection: 0, expensiveReadsWaiting: 0 });
    const { auth } = await authedGame(t);
    // Every connection of the pool checked out: the next request waits for one.
    const held = [t.app.get(DataSource).createQueryRunner(), t.app.get(DataSource).createQueryRunner()];
    for (const r of held) await r.connect();
    try {
      const waiting = t.http.get('/v1/groups').set(auth).then((r) => r);
      await new Promise((r) => setTimeout(r, 100));
      const busy = await t.http.get('/healthz');
      expect(busy.body.load).toMatchObject({ saturated: true, dbConnectionsInUse: 2, dbConnectionsMax: 2 });
      expect(busy.body.load.waitingForConnection).toBeGreaterThanOrEqual(1);
      for (const r of held.splice(0)) await r.release();
      expect((await waiting).status).toBe(200);
    } finally {
      for (const r of held) await r.release();
    }
    expect((await t.http.get('/healthz')).body.load).toMatchObject({ saturated: false, waitingForConnection: 0 });
  });

  it('once shutdown has begun, readiness fails with a reason and new requests are refused with 503 and Connection: close', async () => {
    const other = await startTestApp({}, t.db);
    try {
      const { auth } = await authedGame(other);
      expect((await other.http.get('/v1/whoami').set(auth)).status).toBe(200);
      other.app.get(HealthService).onModuleDestroy();
      const r = await other.http.get('/healthz');
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ status: 'degraded', reason: 'the server is shutting down', db: { ok: true } });
      expect((await other.http.get('/')).status).toBe(200);
      const refused = await other.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'too late' });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'service_unavailable', status: 503, message: expect.stringMatching(/shutting down/) });
      expect(refused.headers).toMatchObject({ connection: 'close', 'retry-after': '1' });
      expect(refused.body.requestId).toBe(refused.headers['x-request-id']);
      expect(await other.db.query(`SELECT 1 FROM groups WHERE name = 'too late'`)).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('the worker is reported stale once its last tick is older than 60 s', () => {
    const health = t.app.get(DeliveryWorker).health(Date.now() + 61_000);
    expect(health).toMatchObject({ ok: false });
    expect(health.ok === false && health.ageMs).toBeGreaterThan(60_000);
  });
});
