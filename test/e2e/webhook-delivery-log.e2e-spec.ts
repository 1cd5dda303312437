import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { ServiceClient } from '../../src/db/prepared-client';
import { expectError } from '../helpers/errors';
import { EVENT_ID, ISO_MS, UUID } from '../helpers/shapes';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';
import { tickPastHorizon } from '../helpers/delivery-ticks';

/**
 * The delivery log (docs/webhooks.md): GET /v1/webhooks/:id/deliveries (status filter, keyset
 * pages, newest first) and GET /v1/webhooks/:id/deliveries/:deliveryId with every attempt, written
 * by the worker's batched result statement; 404 across games.
 */
let t: TestApp;
const receivers: RecordingReceiver[] = [];
const tick = () => tickPastHorizon(t.app);
const MISSING_UUID = '0190a0b0-0000-7000-8000-00000000dead';

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' });
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => t?.close());

async function receiver(respond?: (nth: number) => number): Promise<RecordingReceiver> {
  const rx = await recordingReceiver(respond);
  receivers.push(rx);
  return rx;
}

async function hook(auth: Record<string, string>, url: string): Promise<{ id: string }> {
  const r = await t.http.post('/v1/webhooks').set(auth).send({ url });
  expect(r.status).toBe(201);
  return r.body;
}

let bans = 0;
async function ban(auth: Record<string, string>): Promise<void> {
  expect((await t.http.post('/v1/bans').set(auth).send({ userId: `logged-${++bans}` })).status).toBe(201);
}

const makeDue = (endpointId: string) =>
  t.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now(), lease_until = NULL WHERE endpoint_id = $1 AND status = 'pending'`, [endpointId]);

const listPath = (id: string) => `/v1/webhooks/${id}/deliveries`;

/** Every page of the list with `query`, following nextCursor. */
async function allPages(auth: Record<string, string>, id: string, query: Record<string, string>): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const r: Response = await t.http.get(listPath(id)).query({ ...query, ...(cursor ? { cursor } : {}) }).set(auth);
    expect(r.status).toBe(200);
    ids.push(...r.body.items.map((i: { id: string }) => i.id));
    sizes.push(r.body.items.length);
    cursor = r.body.nextCursor;
  } while (cursor && sizes.length < 50);
  return { ids, sizes };
}

it('a receiver answering 500 then 200: the log shows two attempts with their codes, the list the outcome', async () => {
  const rx = await receiver((n) => (n === 1 ? 500 : 200));
  const g = await authedGame(t);
  const h = await hook(g.auth, rx.url);
  await ban(g.auth);
  await tick();

  const pending = await t.http.get(listPath(h.id)).set(g.auth);
  expect(pending.status).toBe(200);
  expect(pending.body.nextCursor).toBeNull();
  expect(pending.body.items).toHaveLength(1);
  const [p] = pending.body.items;
  expect(Object.keys(p).sort()).toEqual(
    ['attempts', 'createdAt', 'deliveredAt', 'eventId', 'eventType', 'id', 'lastAttemptAt', 'lastError', 'lastStatusCode', 'nextAttemptAt', 'status'].sort(),
  );
  expect(p).toEqual({
    id: expect.stringMatching(UUID),
    eventId: expect.stringMatching(EVENT_ID),
    eventType: 'game.user.banned',
    status: 'pending',
    attempts: 1,
    createdAt: expect.stringMatching(ISO_MS),
    nextAttemptAt: expect.stringMatching(ISO_MS),
    lastAttemptAt: expect.stringMatching(ISO_MS),
    deliveredAt: null,
    lastStatusCode: 500,
    lastError: 'HTTP 500',
  });
  expect(p.id).toBe(rx.received[0].headers['x-svc-delivery-id']);
  expect(p.eventId).toBe(rx.received[0].headers['x-svc-event-id']);
  // The wait runs from the answer, the attempt's time from its claim.
  expect(Math.abs(Date.parse(p.nextAttemptAt) - Date.parse(p.lastAttemptAt) - 60_000)).toBeLessThan(5_000);

  await makeDue(h.id);
  await tick();
  const detail = await t.http.get(`${listPath(h.id)}/${p.id}`).set(g.auth);
  expect(detail.status).toBe(200);
  expect(detail.body).toMatchObject({ id: p.id, status: 'delivered', attempts: 2, nextAttemptAt: null, lastStatusCode: 200, lastError: null });
  expect(detail.body.deliveredAt).toMatch(ISO_MS);
  expect(detail.body.attemptLog).toEqual([
    { number: 1, at: p.lastAttemptAt, statusCode: 500, error: 'HTTP 500', durationMs: expect.any(Number) },
    { number: 2, at: detail.body.lastAttemptAt, statusCode: 200, error: null, durationMs: expect.any(Number) },
  ]);
  for (const a of detail.body.attemptLog) {
    expect(Number.isInteger(a.durationMs) && a.durationMs >= 0 && a.durationMs < 10_000).toBe(true);
  }
  expect(Date.parse(detail.body.attemptLog[1].at)).toBeGreaterThan(Date.parse(detail.body.attemptLog[0].at));
  const { attemptLog: _log, ...listed } = detail.body;
  expect((await t.http.get(listPath(h.id)).set(g.auth)).body.items).toEqual([listed]);
});

it('an attempt without an answer logs a null status code, the error and how long it waited', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const g = await authedGame(t);
  const h = await hook(g.auth, `http://127.0.0.1:${port}/nobody`);
  await ban(g.auth);
  await tick();
  const [d] = (await t.http.get(listPath(h.id)).set(g.auth)).body.items;
  const detail = await t.http.get(`${listPath(h.id)}/${d.id}`).set(g.auth);
  expect(detail.body).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: expect.stringContaining('network error') });
  expect(detail.body.attemptLog).toEqual([{ number: 1, at: d.lastAttemptAt, statusCode: null, error: d.lastError, durationMs: expect.any(Number) }]);
});

it('a delivery not yet attempted has an empty attempt log', async () => {
  const g = await authedGame(t);
  const h = await hook(g.auth, 'http://127.0.0.1:9/never');
  await ban(g.auth);
  const [d] = (await t.http.get(listPath(h.id)).set(g.auth)).body.items;
  expect(d).toMatchObject({ status: 'pending', attempts: 0, lastAttemptAt: null, lastStatusCode: null, lastError: null, nextAttemptAt: expect.stringMatching(ISO_MS) });
  expect((await t.http.get(`${listPath(h.id)}/${d.id}`).set(g.auth)).body.attemptLog).toEqual([]);
});

it('status filters and keyset pages: newest first, each status its own list, no overlap, no gap', async () => {
  // Answers by arrival: 200, 503, 410, 200, 503, 410, ... for nine deliveries.
  const rx = await receiver((n) => [200, 503, 410][(n - 1) % 3]);
  const g = await authedGame(t);
  const h = await hook(g.auth, rx.url);
  for (let i = 0; i < 9; i++) await ban(g.auth);
  await tick();
  expect(rx.received).toHaveLength(9);

  const all = await allPages(g.auth, h.id, { limit: '100' });
  expect(all.ids).toHaveLength(9);
  const rows = await t.db.query<{ id: string; status: string }>(
    `SELECT id, status FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC`,
    [h.id],
  );
  expect(all.ids).toEqual(rows.map((r) => r.id));
  const paged = await allPages(g.auth, h.id, { limit: '2' });
  expect(paged).toEqual({ ids: all.ids, sizes: [2, 2, 2, 2, 1] });

  for (const status of ['pending', 'delivered', 'failed']) {
    const want = rows.filter((r) => r.status === status).map((r) => r.id);
    expect(want).toHaveLength(3);
    const one = await allPages(g.auth, h.id, { status, limit: '2' });
    expect({ status, ...one }).toEqual({ status, ids: want, sizes: [2, 1] });
    const page = await t.http.get(listPath(h.id)).query({ status }).set(g.auth);
    for (const item of page.body.items) expect(item.status).toBe(status);
  }
});

it('the attempts are written by the batched result statement: no statement of their own', async () => {
  const rx = await receiver();
  const g = await authedGame(t);
  const h = await hook(g.auth, rx.url);
  for (let i = 0; i < 12; i++) await ban(g.auth);
  // The worker's statements go through TypeORM's manager, or as prepared statements on the pool's connections.
  const ds = t.app.get(DataSource);
  const pool = (ds.driver as unknown as { master: { query: (config: unknown) => unknown } }).master;
  const spies = [
    jest.spyOn(ds.manager, 'query'),
    jest.spyOn(pool, 'query'),
    jest.spyOn(ServiceClient.prototype, 'queryGenericPlan'),
  ];
  let statements: string[];
  try {
    await tick();
    // Only the worker's: other background work (the member-count folder, the event relay) runs on
    // its own schedule and, on a busy machine, lands inside the tick too.
    statements = spies
      .flatMap((spy) => spy.mock.calls.map(([sql]) => (typeof sql === 'string' ? sql : String((sql as { text: string }).text))))
      .filter((s) => s.includes('webhook_'));
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  expect(rx.received).toHaveLength(12);
  // How many result writes there are depends on how the sends finish (together: one; one by one on
  // a busy machine: up to one each). What holds either way: each write of attempts is a result
  // write, each result write carries its attempts, and no delivery takes more than one.
  const logging = statements.filter((s) => s.includes('webhook_delivery_attempts'));
  const results = statements.filter((s) => s.includes('UPDATE webhook_deliveries') && !s.includes('FOR UPDATE'));
  expect(logging.length).toBeGreaterThanOrEqual(1);
  for (const s of logging) expect(s).toContain('UPDATE webhook_deliveries');
  expect(logging.length).toBe(results.length);
  expect(results.length).toBeLessThanOrEqual(12);
  const [{ n }] = await t.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1`,
    [h.id],
  );
  expect(n).toBe(12);
});

it('validation: a bad status, cursor or limit is 400 naming the field', async () => {
  const g = await authedGame(t);
  const h = await hook(g.auth, 'http://127.0.0.1:9/never');
  const other = await hook(g.auth, 'http://127.0.0.1:9/other');
  await ban(g.auth);
  await ban(g.auth);
  for (const status of ['done', 'PENDING', '']) {
    const r = await t.http.get(listPath(h.id)).query({ status }).set(g.auth);
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('status');
  }
  const repeated = await t.http.get(`${listPath(h.id)}?status=pending&status=failed`).set(g.auth);
  expectError(repeated, 400, 'bad_request');
  expect(repeated.body.message).toContain('status');
  const page = await t.http.get(listPath(h.id)).query({ limit: '1' }).set(g.auth);
  expect(typeof page.body.nextCursor).toBe('string');
  for (const cursor of ['bogus', 'eyJub3QiOiJhIGN1cnNvciJ9']) {
    const r = await t.http.get(listPath(h.id)).query({ cursor }).set(g.auth);
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('cursor');
  }
  // A cursor names the endpoint it was issued for.
  const foreign = await t.http.get(listPath(other.id)).query({ cursor: page.body.nextCursor }).set(g.auth);
  expectError(foreign, 400, 'bad_request');
  expect(foreign.body.message).toContain('cursor');
  for (const limit of ['0', '101', 'x']) {
    const r = await t.http.get(listPath(h.id)).query({ limit }).set(g.auth);
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('limit');
  }
});

it("404 for another game's endpoint and delivery, an unknown or non-uuid id, and a delivery of another endpoint", async () => {
  const a = await authedGame(t);
  const b = await authedGame(t);
  const h = await hook(a.auth, 'http://127.0.0.1:9/mine');
  const sibling = await hook(a.auth, 'http://127.0.0.1:9/sibling');
  await ban(a.auth);
  const [d] = (await t.http.get(listPath(h.id)).set(a.auth)).body.items;
  expectError(await t.http.get(listPath(h.id)).set(b.auth), 404, 'not_found');
  expectError(await t.http.get(listPath(h.id)).query({ status: 'pending' }).set(b.auth), 404, 'not_found');
  expectError(await t.http.get(`${listPath(h.id)}/${d.id}`).set(b.auth), 404, 'not_found');
  expectError(await t.http.get(listPath(MISSING_UUID)).set(a.auth), 404, 'not_found');
  expectError(await t.http.get(listPath('not-a-uuid')).set(a.auth), 404, 'not_found');
  expectError(await t.http.get(`${listPath(h.id)}/${MISSING_UUID}`).set(a.auth), 404, 'not_found');
  expectError(await t.http.get(`${listPath(h.id)}/not-a-uuid`).set(a.auth), 404, 'not_found');
  expectError(await t.http.get(`${listPath(sibling.id)}/${d.id}`).set(a.auth), 404, 'not_found');
  expectError(await t.http.post(`/v1/webhooks/${h.id}/rotate-secret`).set(b.auth), 404, 'not_found');
  expect((await t.http.get(`${listPath(h.id)}/${d.id}`).set(a.auth)).status).toBe(200);
});

it('without a valid key every new route is 401', async () => {
  const a = await authedGame(t);
  const h = await hook(a.auth, 'http://127.0.0.1:9/keyed');
  for (const headers of [{}, { authorization: 'Bearer jk_0000000000.not-a-real-secret' }]) {
    expectError(await t.http.get(listPath(h.id)).set(headers), 401, 'invalid_api_key');
    expectError(await t.http.get(`${listPath(h.id)}/${MISSING_UUID}`).set(headers), 401, 'invalid_api_key');
    expectError(await t.http.post(`/v1/webhooks/${h.id}/rotate-secret`).set(headers), 401, 'invalid_api_key');
  }
});
