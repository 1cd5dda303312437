import { randomBytes } from 'node:crypto';
import { TRACING } from '../../src/observability/tracing/tracing.module';
import type { Tracing } from '../../src/observability/tracing/tracing';
import { tickPastHorizon } from '../helpers/delivery-ticks';
import { joinOk, postGroup } from '../helpers/groups';
import { journalEvents } from '../helpers/journal';
import { otlpReceiver, parseTraceparent, SPAN_KIND, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';

/**
 * Traces (docs/observability.md, Traces): with OTEL_EXPORTER_OTLP_ENDPOINT set, each request is a
 * SERVER span named by its route template, its SQL statements are CLIENT children without values,
 * a caller's traceparent is the parent, and each webhook attempt is a span of its own, sent to the
 * receiver as traceparent and linked to the request that caused the event. Without it, nothing is
 * exported. The app runs in-process against a stand-in collector; the worker is driven by tick(),
 * once the events written are below the feed's horizon.
 */

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const WORKER_OFF = { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' };

async function webhookTo(t: TestApp, auth: Record<string, string>, url: string): Promise<{ id: string }> {
  const r = await t.http.post('/v1/webhooks').set(auth).send({ url, events: ['member.joined'] });
  if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${r.text}`);
  return r.body;
}

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((s) => s.traceId === parent.traceId && s.parentSpanId === parent.spanId);

describe('traces, with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  let collector: OtlpReceiver;
  let hooks: RecordingReceiver;
  let t: TestApp;
  let tracing: Tracing;

  beforeAll(async () => {
    collector = await otlpReceiver();
    hooks = await recordingReceiver();
    t = await startTestApp({ ...WORKER_OFF, OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_SERVICE_NAME: 'guildhall-e2e' });
    tracing = t.app.get<symbol, Tracing>(TRACING);
  });
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
    await collector?.close();
  });

  /** Sends what has ended, then the span `find` matches. */
  const exported = async (find: (s: ReceivedSpan) => boolean) => {
    await tracing.flush();
    return collector.waitForSpan(find);
  };

  it('makes a request a SERVER span named by its route template, its statements CLIENT children, and no value in any span', async () => {
    const { auth } = await authedGame(t);
    const group = await postGroup(t, auth, { kind: 'guild', name: 'Knights', visibility: 'public' });
    // A user id found nowhere but in this request's body: no span may carry it.
    const userId = `tracing-user-${hex(8)}`;
    const joined = await t.http.post(`/v1/groups/${group.id}/join`).set(auth).send({ userId });
    expect(joined.status).toBe(201);
    const requestId = joined.headers['x-request-id'];

    const server = await exported((s) => s.attributes['guildhall.request_id'] === requestId);
    expect(server).toMatchObject({
      name: 'POST /v1/groups/:id/join',
      kind: SPAN_KIND.SERVER,
      parentSpanId: undefined,
      attributes: expect.objectContaining({
        'http.request.method': 'POST',
        'http.route': '/v1/groups/:id/join',
        'http.response.status_code': 201,
        'url.scheme': 'http',
      }),
      resource: expect.objectContaining({ 'service.name': 'guildhall-e2e' }),
    });

    const sql = childrenOf(collector.spans, server);
    expect(sql.length).toBeGreaterThanOrEqual(1);
    for (const s of sql) {
      expect(s.kind).toBe(SPAN_KIND.CLIENT);
      expect(s.attributes).toMatchObject({ 'db.system': 'postgresql', 'db.system.name': 'postgresql' });
      expect(typeof s.attributes['db.query.text']).toBe('string');
      expect(s.name).toBe(s.attributes['db.query.summary']);
    }
    // The unit of work's statements: the first carries BEGIN, the flush writes the event and carries COMMIT.
    const flush = sql.find((s) => String(s.attributes['db.query.text']).includes('INSERT INTO journal'));
    expect(flush).toBeDefined();
    expect(flush!.name).toContain('INSERT journal');
    // The COMMIT, and the commit position read after it (the consistency token).
    expect(flush!.attributes['guildhall.db.batched_with']).toEqual(['COMMIT', 'SELECT pg_current_wal_insert_lsn']);
    expect(sql.some((s) => (s.attributes['guildhall.db.batched_with'] as string[] | undefined)?.[0] === 'BEGIN')).toBe(true);
    expect(sql.every((s) => s.attributes['db.query.text'] !== undefined && !String(s.attributes['db.query.text']).includes(group.id))).toBe(true);

    // Nothing exported so far names the user or the group: names are templates, statements carry no values.
    const everything = collector.requests.map((r) => r.body).join('\n');
    expect(everything).not.toContain(userId);
    expect(everything).not.toContain(group.id);
  });

  it('gives a write one span per round trip: the BEGIN, the locks and the COMMIT ride with statements and are named on them', async () => {
    const { auth } = await authedGame(t);
    const group = await postGroup(t, auth, { kind: 'guild', name: 'Trips', visibility: 'public' });
    // Known to the game already, as most joiners are: the join is then two round trips (docs/operations.md).
    await joinOk(t, auth, group.id, 'tripper');
    await t.http.post(`/v1/groups/${group.id}/leave`).set(auth).send({ userId: 'tripper' }).expect(200);
    const traceId = hex(16);

    await t.http.post(`/v1/groups/${group.id}/join`).set(auth).set('traceparent', `00-${traceId}-${hex(8)}-01`).send({ userId: 'tripper' }).expect(201);

    const server = await exported((s) => s.traceId === traceId && s.kind === SPAN_KIND.SERVER);
    const sql = childrenOf(collector.spans, server);
    expect(sql.map((s) => s.attributes['guildhall.db.batched_with'])).toEqual([['BEGIN', 'SELECT pg_advisory_xact_lock'], ['COMMIT', 'SELECT pg_current_wal_insert_lsn']]);
    expect(sql.map((s) => s.name)).toEqual(['INSERT members UPDATE members SELECT', 'INSERT journal SELECT']);
  });

  it('joins the trace of a caller that sends traceparent, as the child of its span', async () => {
    const { auth } = await authedGame(t);
    const traceId = hex(16);
    const parentId = hex(8);

    const r = await t.http.get('/v1/groups').query({ limit: '5' }).set(auth).set('traceparent', `00-${traceId}-${parentId}-01`).set('tracestate', 'vendor=x');
    expect(r.status).toBe(200);

    const server = await exported((s) => s.traceId === traceId && s.kind === SPAN_KIND.SERVER);
    expect(server).toMatchObject({ name: 'GET /v1/groups', parentSpanId: parentId });
    expect(childrenOf(collector.spans, server).length).toBeGreaterThanOrEqual(1);
  });

  it('keeps a request the caller did not sample out of the traces (parentbased_always_on)', async () => {
    const { auth } = await authedGame(t);
    const traceId = hex(16);

    const r = await t.http.get('/v1/groups').set(auth).set('traceparent', `00-${traceId}-${hex(8)}-00`);
    expect(r.status).toBe(200);
    await tracing.flush();
    // A later request is exported, so the export has run past this one.
    const marker = hex(16);
    await t.http.get('/').set('traceparent', `00-${marker}-${hex(8)}-01`);
    await exported((s) => s.traceId === marker);

    expect(collector.spans.filter((s) => s.traceId === traceId)).toEqual([]);
  });

  it('names an unknown route by its method only', async () => {
    const traceId = hex(16);
    const r = await t.http.get(`/v1/no-such-route/${hex(4)}`).set('traceparent', `00-${traceId}-${hex(8)}-01`);
    expect(r.status).toBe(404);

    const server = await exported((s) => s.traceId === traceId);
    expect(server.name).toBe('GET');
    expect(server.attributes['http.route']).toBeUndefined();
    expect(server.attributes['http.response.status_code']).toBe(404);
  });

  it('makes a webhook attempt a span of its own, sent as traceparent, linked to the request that caused the event', async () => {
    const { auth } = await authedGame(t);
    const group = await postGroup(t, auth, { kind: 'guild', name: 'Hooks', visibility: 'public' });
    await webhookTo(t, auth, hooks.url);
    const received = hooks.received.length;
    const traceId = hex(16);

    const joined = await t.http
      .post(`/v1/groups/${group.id}/join`)
      .set(auth)
      .set('traceparent', `00-${traceId}-${hex(8)}-01`)
      .send({ userId: `hooked-${hex(4)}` });
    expect(joined.status).toBe(201);
    const request = await exported((s) => s.traceId === traceId && s.kind === SPAN_KIND.SERVER);
    // The event keeps the request's context.
    const [stored] = await t.db.query<{ trace_context: { traceparent: string } }>(
      `SELECT trace_context FROM ${journalEvents()} WHERE group_id = $1 AND type = 'member.joined'`,
      [group.id],
    );
    expect(parseTraceparent(stored.trace_context.traceparent)).toEqual({ traceId, parentId: request.spanId, sampled: true });

    await tickPastHorizon(t.app);
    expect(hooks.received.length).toBe(received + 1);
    const delivery = hooks.received[received];
    const header = parseTraceparent(delivery.headers.traceparent);

    const attempt = await exported((s) => s.spanId === header.parentId);
    expect(attempt).toMatchObject({
      name: 'webhook attempt',
      kind: SPAN_KIND.CLIENT,
      traceId: header.traceId,
      parentSpanId: undefined,
      links: [{ traceId: request.traceId, spanId: request.spanId }],
      attributes: expect.objectContaining({
        'http.request.method': 'POST',
        'http.response.status_code': 200,
        'server.address': '127.0.0.1',
        'guildhall.webhook.outcome': 'delivered',
        'guildhall.webhook.attempt': 1,
        'guildhall.event.type': 'member.joined',
        'guildhall.event.id': delivery.body.id,
      }),
    });
    // A trace of its own: the attempt runs whenever the worker gets to it, retries hours later.
    expect(attempt.traceId).not.toBe(traceId);
    // The URL is not recorded (chat webhooks carry their secret in its path).
    expect(JSON.stringify(attempt.attributes)).not.toContain(hooks.url);
  });

  it('records a failed attempt as an error, with its status code', async () => {
    const failing = await recordingReceiver(() => 500);
    try {
      const { auth } = await authedGame(t);
      const group = await postGroup(t, auth, { kind: 'guild', name: 'Failing', visibility: 'public' });
      await webhookTo(t, auth, failing.url);
      await joinOk(t, auth, group.id, `failing-${hex(4)}`);

      await tickPastHorizon(t.app);
      expect(failing.received).toHaveLength(1);
      const header = parseTraceparent(failing.received[0].headers.traceparent);

      const attempt = await exported((s) => s.spanId === header.parentId);
      expect(attempt.status).toBe(2);
      expect(attempt.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500', 'guildhall.webhook.outcome': 'retry' });
    } finally {
      await failing.close();
    }
  });
});

describe('traces, without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('are off: nothing is exported, no context is kept, no traceparent is sent', async () => {
    const collector = await otlpReceiver();
    const hooks = await recordingReceiver();
    // The other variables alone turn nothing on.
    const t = await startTestApp({ ...WORKER_OFF, OTEL_SERVICE_NAME: 'guildhall-off', OTEL_TRACES_SAMPLER: 'always_on' });
    try {
      expect(t.app.get(TRACING)).toBeNull();
      const { auth } = await authedGame(t);
      const group = await postGroup(t, auth, { kind: 'guild', name: 'Quiet', visibility: 'public' });
      await webhookTo(t, auth, hooks.url);
      const joined = await t.http.post(`/v1/groups/${group.id}/join`).set(auth).set('traceparent', `00-${hex(16)}-${hex(8)}-01`).send({ userId: 'quiet' });
      expect(joined.status).toBe(201);
      await tickPastHorizon(t.app);

      expect(hooks.received).toHaveLength(1);
      expect(hooks.received[0].headers.traceparent).toBeUndefined();
      const rows = await t.db.query<{ trace_context: unknown }>(`SELECT trace_context FROM ${journalEvents()} WHERE group_id = $1`, [group.id]);
      expect(rows.length).toBeGreaterThanOrEqual(2);
      expect(rows.every((r) => r.trace_context === null)).toBe(true);
    } finally {
      await t.close();
      await hooks.close();
    }
    // Shut down: whatever a tracer had batched would have been sent by now.
    expect(collector.requests).toEqual([]);
    await collector.close();
  });
});
