import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres';
import { otlpReceiver, parseTraceparent, SPAN_KIND, type OtlpReceiver } from '../helpers/otlp-receiver';
import { http, killAll, requireBuild, ROOT, startServerProcess, TEST_ADMIN_TOKEN, type RunningServer } from '../helpers/process';
import { createTestDatabase } from '../helpers/test-db';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';

/**
 * Traces from the built service (docs/observability.md, Traces), as an operator runs it:
 * `node dist/src/main.js` with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a collector (here a stand-in
 * that keeps the OTLP/HTTP JSON it is sent). A request with a caller's traceparent and the webhook
 * delivery it causes arrive with the documented span names and parent links once the process has
 * stopped (the last spans are sent on shutdown), and the webhook receiver gets the attempt's traceparent.
 */

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

interface Database {
  url: string;
  close(): Promise<void>;
}

/** A database of the run's server (the test global setup), or of an embedded cluster of this file's own. */
async function database(): Promise<Database> {
  if (process.env.GH_TEST_SERVER_URL) {
    const db = await createTestDatabase();
    return { url: db.url, close: () => db.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'guildhall-ops-traces-'));
  const pg = await startEmbeddedPostgres({ dataDir: dir, ephemeral: true });
  return {
    url: pg.url,
    close: async () => {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

jest.setTimeout(120_000);

describe('traces of the built service', () => {
  let db: Database;
  let collector: OtlpReceiver;
  let hooks: RecordingReceiver;
  let svc: RunningServer;

  beforeAll(async () => {
    requireBuild();
    db = await database();
    collector = await otlpReceiver();
    hooks = await recordingReceiver();
  });
  afterAll(async () => {
    await killAll();
    await hooks?.close();
    await collector?.close();
    await db?.close();
  });

  it('exports the request, its statements and the webhook attempt with their links, and sends traceparent to the receiver', async () => {
    svc = await startServerProcess(db.url, {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_SERVICE_NAME: 'guildhall-ops',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=ops-test',
      WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
    });
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const game = await http(`${svc.url}/v1/admin/games`, { method: 'POST', headers: admin, body: { name: 'traced' } });
    const key = await http(`${svc.url}/v1/admin/games/${game.body.id}/api-keys`, { method: 'POST', headers: admin });
    const auth = { authorization: `Bearer ${key.body.key}` };
    const hook = await http(`${svc.url}/v1/webhooks`, { method: 'POST', headers: auth, body: { url: hooks.url, events: ['member.joined'] } });
    expect(hook.status).toBe(201);
    const group = await http(`${svc.url}/v1/groups`, { method: 'POST', headers: auth, body: { kind: 'guild', name: 'Traced', visibility: 'public' } });
    expect(group.status).toBe(201);

    // The caller's trace, and a user id that must never reach a span.
    const traceId = hex(16);
    const callerSpanId = hex(8);
    const userId = `ops-user-${hex(8)}`;
    const joined = await http(`${svc.url}/v1/groups/${group.body.id}/join`, {
      method: 'POST',
      headers: { ...auth, traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: { userId },
    });
    expect(joined.status).toBe(201);

    // The commit wakes the worker: the delivery is sent within moments.
    const deadline = Date.now() + 15_000;
    while (hooks.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(hooks.received).toHaveLength(1);
    const sent = parseTraceparent(hooks.received[0].headers.traceparent);

    // Stop it: the spans still batched (up to 5 s of them) are sent before the process exits.
    svc.proc.child.kill('SIGTERM');
    const exit = await svc.proc.waitForExit(35_000);
    expect([0, 'SIGTERM']).toContain(exit.code ?? exit.signal);
    const spans = collector.spans;

    const request = spans.find((s) => s.traceId === traceId && s.kind === SPAN_KIND.SERVER);
    expect(request).toMatchObject({
      name: 'POST /v1/groups/:id/join',
      parentSpanId: callerSpanId,
      attributes: expect.objectContaining({ 'http.route': '/v1/groups/:id/join', 'http.response.status_code': 201 }),
      resource: expect.objectContaining({ 'service.name': 'guildhall-ops', 'deployment.environment.name': 'ops-test' }),
    });
    const statements = spans.filter((s) => s.traceId === traceId && s.parentSpanId === request!.spanId);
    expect(statements.length).toBeGreaterThanOrEqual(2);
    expect(statements.every((s) => s.kind === SPAN_KIND.CLIENT && s.attributes['db.system'] === 'postgresql')).toBe(true);
    expect(statements.map((s) => s.name)).toContain('INSERT journal SELECT');

    const attempt = spans.find((s) => s.spanId === sent.parentId);
    expect(attempt).toMatchObject({
      name: 'webhook attempt',
      kind: SPAN_KIND.CLIENT,
      traceId: sent.traceId,
      links: [{ traceId, spanId: request!.spanId }],
      attributes: expect.objectContaining({ 'guildhall.webhook.outcome': 'delivered', 'http.response.status_code': 200 }),
    });

    const exported = collector.requests.map((r) => r.body).join('\n');
    expect(collector.requests.every((r) => r.path === '/v1/traces')).toBe(true);
    expect(exported).not.toContain(userId);
    expect(exported).not.toContain(group.body.id);
  });

  it('with traces off, the server loads no OpenTelemetry SDK code (only the API facade prom-client requires)', () => {
    // Everything main.js loads before it reads the settings, and the app it builds from them.
    const script = `require('./dist/src/boot'); require('./dist/src/app.factory');
      process.stdout.write(String(Object.keys(require.cache).filter((f) => f.includes('@opentelemetry') && !f.includes('@opentelemetry/api/')).length))`;

    expect(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })).toBe('0');
  });
});
