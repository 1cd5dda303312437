import { HealthService } from '../../src/health/health.service';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

describe('health routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('GET / answers name and the constant version 0.0.0 without credentials', async () => {
    const r = await t.http.get('/');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: 'guildhall', version: '0.0.0' });
  });

  it('GET /healthz reports ok with the database and the worker heartbeat', async () => {
    const r = await t.http.get('/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', db: { ok: true }, webhookWorker: { ok: true } });
    expect(new Date(r.body.timestamp).toISOString()).toBe(r.body.timestamp);
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
