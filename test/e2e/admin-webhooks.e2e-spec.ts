import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { expectError } from '../helpers/errors';
import { journalAudit } from '../helpers/journal';
import { asAdmin, authedGame, bearer, startTestApp, type TestApp } from '../helpers/test-app';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';
import { tickPastHorizon } from '../helpers/delivery-ticks';

/**
 * The operator's reads of a game's webhooks (docs/concepts/admin.md): GET /v1/admin/games/:gameId/
 * webhooks, .../webhooks/:id/deliveries and .../deliveries/:deliveryId answer what GET /v1/webhooks
 * and the delivery log answer for the same data, scoped to the path's game, never with a secret.
 */
let t: TestApp;
const receivers: RecordingReceiver[] = [];
const tick = () => tickPastHorizon(t.app);
type Auth = Record<string, string>;

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' });
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => t?.close());

const A = (gameId: string) => `/v1/admin/games/${gameId}`;
const admin = (path: string, query: Record<string, string> = {}) => t.http.get(path).query(query).set(asAdmin);
const game = (auth: Auth, path: string, query: Record<string, string> = {}) => t.http.get(path).query(query).set(auth);

async function ok(req: Promise<Response>, status = 200): Promise<Response> {
  const r = await req;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status} ${r.text}`);
  return r;
}

/** 404 from the route itself ("<what> not found"), not from a path no route serves. */
function notFound(r: Response, what: string): void {
  expectError(r, 404, 'not_found');
  expect(r.body.message).toBe(`${what} not found`);
}

async function hook(auth: Auth, url: string, body: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  return (await ok(t.http.post('/v1/webhooks').set(auth).send({ url, ...body }), 201)).body;
}

let bans = 0;
const ban = async (auth: Auth) => ok(t.http.post('/v1/bans').set(auth).send({ userId: `hooked-${++bans}` }), 201);

/** Every page of a list, following nextCursor. */
async function pages(get: (q: Record<string, string>) => Promise<Response>, query: Record<string, string>): Promise<unknown[][]> {
  const out: unknown[][] = [];
  let cursor: string | null = null;
  do {
    const r: Response = await ok(get({ ...query, ...(cursor ? { cursor } : {}) }));
    out.push(r.body.items);
    cursor = r.body.nextCursor;
  } while (cursor && out.length < 50);
  return out;
}

describe('GET /v1/admin/games/:gameId/webhooks', () => {
  it("answers the game route's endpoints, newest first, without a secret; pages by nextCursor alike", async () => {
    const g = await authedGame(t);
    const other = await authedGame(t);
    const formats = ['svc', 'discord', 'slack', 'standard', 'svc'];
    for (const [i, format] of formats.entries()) {
      await hook(g.auth, `http://127.0.0.1:9/hook-${i}`, { format, secret: `admin-list-secret-${i}`, events: i % 2 ? ['member.joined'] : [] });
    }
    await hook(other.auth, 'http://127.0.0.1:9/elsewhere', { secret: 'admin-list-secret-other' });
    await ok(t.http.patch(`/v1/webhooks/${(await game(g.auth, '/v1/webhooks')).body.items[0].id}`).set(g.auth).send({ disabled: true }));

    const mine = await ok(game(g.auth, '/v1/webhooks'));
    const theirs = await ok(admin(`${A(g.gameId)}/webhooks`));
    expect(theirs.body).toEqual(mine.body);
    expect(theirs.body.items).toHaveLength(5);
    expect(theirs.body.items[0].disabledAt).not.toBeNull();
    expect(theirs.text).not.toContain('admin-list-secret');
    for (const item of theirs.body.items) expect(item).not.toHaveProperty('secret');

    const paged = await pages((q) => admin(`${A(g.gameId)}/webhooks`, q), { limit: '2' });
    expect(paged).toEqual(await pages((q) => game(g.auth, '/v1/webhooks', q), { limit: '2' }));
    expect(paged.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(paged.flat()).toEqual(mine.body.items);
    expect((await ok(admin(`${A(other.gameId)}/webhooks`))).body.items.map((w: { url: string }) => w.url)).toEqual(['http://127.0.0.1:9/elsewhere']);
  });

  it("400 for a bad limit or cursor (another game's included); 404 for an unknown game", async () => {
    const g = await authedGame(t);
    const other = await authedGame(t);
    for (let i = 0; i < 2; i++) await hook(other.auth, `http://127.0.0.1:9/o-${i}`);
    for (const limit of ['0', '101', 'x']) expectError(await admin(`${A(g.gameId)}/webhooks`, { limit }), 400, 'bad_request');
    expectError(await admin(`${A(g.gameId)}/webhooks`, { cursor: 'bogus' }), 400, 'bad_request');
    const foreign = await ok(admin(`${A(other.gameId)}/webhooks`, { limit: '1' }));
    expectError(await admin(`${A(g.gameId)}/webhooks`, { cursor: foreign.body.nextCursor }), 400, 'bad_request');
    notFound(await admin(`${A(randomUUID())}/webhooks`), 'game');
  });
});

describe('credentials in a webhook url', () => {
  const PASSWORD = `pw-${randomUUID()}`;
  const USER = `hook-user-${randomUUID().slice(0, 8)}`;
  const urls = (r: Response) => (r.body.items as { url: string }[]).map((w) => w.url);

  it('are never shown, to the game, the operator or in the audit log, while deliveries still carry them', async () => {
    const rx = await recordingReceiver();
    receivers.push(rx);
    const g = await authedGame(t);
    const url = `http://${USER}:${PASSWORD}@127.0.0.1:${rx.port}/hook/a%20b?q=1&r=two#frag`;
    const shown = `http://***:***@127.0.0.1:${rx.port}/hook/a%20b?q=1&r=two#frag`;
    const texts: string[] = [];
    const seen = (r: Response) => (texts.push(r.text), r);

    const created = seen(await ok(t.http.post('/v1/webhooks').set(g.auth).send({ url, events: ['member.joined'] }), 201));
    expect(created.body.url).toBe(shown);
    const id: string = created.body.id;
    expect(urls(seen(await ok(game(g.auth, '/v1/webhooks'))))).toEqual([shown]);
    expect(seen(await ok(t.http.patch(`/v1/webhooks/${id}`).set(g.auth).send({ events: ['game.user.banned'] }))).body.url).toBe(shown);
    // Sent back as shown, the url is the stored one: its credentials stay, nothing is written.
    const resent = seen(await ok(t.http.patch(`/v1/webhooks/${id}`).set(g.auth).send({ url: shown, events: ['game.user.banned'] })));
    expect(resent.body.url).toBe(shown);
    expect(urls(seen(await ok(admin(`${A(g.gameId)}/webhooks`))))).toEqual([shown]);

    await ban(g.auth);
    await tick();
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0].headers.authorization).toBe(`Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`);

    // Changed to a url with other credentials, then deleted.
    const other = `https://solo-${USER}@hooks.example.com/x`;
    expect(seen(await ok(t.http.patch(`/v1/webhooks/${id}`).set(g.auth).send({ url: other }))).body.url).toBe('https://***@hooks.example.com/x');
    expect(urls(seen(await ok(game(g.auth, '/v1/webhooks'))))).toEqual(['https://***@hooks.example.com/x']);
    await ok(t.http.delete(`/v1/webhooks/${id}`).set(g.auth), 204);

    const audit = seen(await ok(admin(`${A(g.gameId)}/audit`, { targetId: id })));
    const entries = (audit.body.items as { action: string; payload: { url?: string } | null }[]).map((e) => [e.action, e.payload?.url]);
    expect(entries).toEqual([
      ['webhook.deleted', 'https://***@hooks.example.com/x'],
      ['webhook.updated', undefined],
      ['webhook.updated', undefined],
      ['webhook.created', shown],
    ]);
    for (const text of texts) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(USER);
    }
    // The row written is what the operator's audit read answers: nothing is masked only on the way out.
    const [row] = await t.db.query<{ payload: unknown }>(`SELECT payload FROM ${journalAudit()} WHERE action = 'webhook.created' AND target_id = $1`, [id]);
    expect(JSON.stringify(row.payload)).not.toContain(PASSWORD);
  });

  it('are masked on the way out too, in entries written before they were masked on the way in', async () => {
    const g = await authedGame(t);
    const h = await hook(g.auth, 'https://hooks.example.com/old');
    const old = [h.id, `https://old-user:${PASSWORD}@hooks.example.com/old`];
    // The entry as it was written then, its names as the rewritten payload gives them.
    await t.db.query(
      `UPDATE journal SET payload = jsonb_set(payload, '{url}', to_jsonb($2::text)),
         names = svc_journal_names(actor_user_id, target_id, jsonb_set(payload, '{url}', to_jsonb($2::text)), body)
       WHERE action = 'webhook.created' AND target_id = $1`,
      old,
    );
    const operator = await ok(admin(`${A(g.gameId)}/audit`, { targetId: h.id }));
    expect(operator.body.items[0].payload.url).toBe('https://***:***@hooks.example.com/old');
    expect(operator.text).not.toContain(PASSWORD);
    const latest = await ok(admin('/v1/admin/audit'));
    expect(latest.text).not.toContain(PASSWORD);
  });

  it('credentials delivery could not decode are 400 naming the url', async () => {
    const g = await authedGame(t);
    expectError(await t.http.post('/v1/webhooks').set(g.auth).send({ url: 'https://%ff:pw@hooks.example.com/x' }), 400, 'bad_request');
    const h = await hook(g.auth, 'https://hooks.example.com/x');
    const r = await t.http.patch(`/v1/webhooks/${h.id}`).set(g.auth).send({ url: 'https://user:%e0%a4@hooks.example.com/x' });
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toBe('url user name and password must be valid percent-encoded UTF-8');
  });
});

describe('the delivery log, for the operator', () => {
  const log = (id: string) => `/v1/webhooks/${id}/deliveries`;
  const adminLog = (gameId: string, id: string) => `${A(gameId)}/webhooks/${id}/deliveries`;

  it('lists and details deliveries as the game routes do: status filter, attempts, pages by nextCursor', async () => {
    // The five first attempts fail; the two made due again then succeed: pending, delivered and two attempt logs.
    const rx = await recordingReceiver((n) => (n <= 5 ? 500 : 200));
    receivers.push(rx);
    const g = await authedGame(t);
    const h = await hook(g.auth, rx.url);
    for (let i = 0; i < 5; i++) await ban(g.auth);
    await tick();
    expect(rx.received).toHaveLength(5);
    await t.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now(), lease_until = NULL WHERE endpoint_id = $1 AND id IN (
      SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at LIMIT 2)`, [h.id]);
    await tick();

    for (const query of [{}, { status: 'pending' }, { status: 'delivered' }, { status: 'failed' }] as Record<string, string>[]) {
      const mine = await ok(game(g.auth, log(h.id), query));
      const theirs = await ok(admin(adminLog(g.gameId, h.id), query));
      expect(theirs.body).toEqual(mine.body);
    }
    const counts = (await ok(admin(adminLog(g.gameId, h.id)))).body.items.map((d: { status: string }) => d.status);
    expect(counts.filter((s: string) => s === 'pending')).toHaveLength(3);
    expect(counts.filter((s: string) => s === 'delivered')).toHaveLength(2);

    const paged = await pages((q) => admin(adminLog(g.gameId, h.id), q), { limit: '2' });
    expect(paged).toEqual(await pages((q) => game(g.auth, log(h.id), q), { limit: '2' }));
    expect(paged.map((p) => p.length)).toEqual([2, 2, 1]);

    for (const d of paged.flat() as { id: string }[]) {
      const mine = await ok(game(g.auth, `${log(h.id)}/${d.id}`));
      const theirs = await ok(admin(`${adminLog(g.gameId, h.id)}/${d.id}`));
      expect(theirs.body).toEqual(mine.body);
      expect(theirs.body.attemptLog.length).toBe(theirs.body.attempts);
    }
  });

  it("404 for another game's endpoint or delivery, a delivery of another endpoint, unknown ids and an unknown game", async () => {
    const a = await authedGame(t);
    const b = await authedGame(t);
    const h = await hook(a.auth, 'http://127.0.0.1:9/mine');
    const sibling = await hook(a.auth, 'http://127.0.0.1:9/sibling');
    const theirs = await hook(b.auth, 'http://127.0.0.1:9/theirs');
    await ban(a.auth);
    await ban(b.auth);
    const [d] = (await ok(admin(adminLog(a.gameId, h.id)))).body.items;
    const [e] = (await ok(admin(adminLog(b.gameId, theirs.id)))).body.items;
    notFound(await admin(adminLog(b.gameId, h.id)), 'webhook');
    notFound(await admin(adminLog(b.gameId, h.id), { status: 'pending' }), 'webhook');
    notFound(await admin(`${adminLog(b.gameId, h.id)}/${d.id}`), 'delivery');
    notFound(await admin(adminLog(a.gameId, theirs.id)), 'webhook');
    notFound(await admin(`${adminLog(a.gameId, theirs.id)}/${e.id}`), 'delivery');
    notFound(await admin(`${adminLog(a.gameId, h.id)}/${e.id}`), 'delivery');
    notFound(await admin(`${adminLog(a.gameId, sibling.id)}/${d.id}`), 'delivery');
    notFound(await admin(adminLog(a.gameId, randomUUID())), 'webhook');
    notFound(await admin(adminLog(a.gameId, 'not-a-uuid')), 'webhook');
    notFound(await admin(`${adminLog(a.gameId, h.id)}/${randomUUID()}`), 'delivery');
    notFound(await admin(`${adminLog(a.gameId, h.id)}/not-a-uuid`), 'delivery');
    notFound(await admin(adminLog(randomUUID(), h.id)), 'game');
    notFound(await admin(`${adminLog(randomUUID(), h.id)}/${d.id}`), 'game');
    expect((await admin(`${adminLog(a.gameId, h.id)}/${d.id}`)).status).toBe(200);
  });

  it('400 for a bad status, limit or cursor, as on the game route', async () => {
    const g = await authedGame(t);
    const h = await hook(g.auth, 'http://127.0.0.1:9/validated');
    const other = await hook(g.auth, 'http://127.0.0.1:9/validated-other');
    await ban(g.auth);
    await ban(g.auth);
    const path = adminLog(g.gameId, h.id);
    for (const status of ['done', '']) expectError(await admin(path, { status }), 400, 'bad_request');
    for (const limit of ['0', '101', 'x']) expectError(await admin(path, { limit }), 400, 'bad_request');
    const page = await ok(admin(path, { limit: '1' }));
    expectError(await admin(adminLog(g.gameId, other.id), { cursor: page.body.nextCursor }), 400, 'bad_request');
  });
});

it('every route takes the admin token only: none, a wrong one or a game key is 401 invalid_admin_token', async () => {
  const g = await authedGame(t);
  const h = await hook(g.auth, 'http://127.0.0.1:9/auth');
  await ban(g.auth);
  const [d] = (await ok(game(g.auth, `/v1/webhooks/${h.id}/deliveries`))).body.items;
  for (const path of ['/webhooks', `/webhooks/${h.id}/deliveries`, `/webhooks/${h.id}/deliveries/${d.id}`]) {
    for (const headers of [{}, bearer('jadm_not_the_token'), g.auth]) {
      expectError(await t.http.get(`${A(g.gameId)}${path}`).set(headers), 401, 'invalid_admin_token');
    }
  }
});
