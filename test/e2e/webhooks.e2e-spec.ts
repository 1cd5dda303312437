import { EVENT_TYPES } from '../../src/events/event-types';
import { untakenSql } from '../../src/webhooks/position-sql';
import { journalAudit, journalEvents } from '../helpers/journal';
import { bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';
import { rowAsCommitted } from '../helpers/webhook-deliveries';

/**
 * Webhook endpoints end to end: SPEC §2 Webhook endpoint, §4 Webhook endpoints, §7, §8 (url and
 * secret limits, page sizes); DECISIONS §15 (the 22 event types, 24 with EXTENSIONS X3's), §18 timestamps, §25 (the
 * private-host check is lexical and runs only when a url is created or changed).
 */

interface Webhook {
  id: string;
  gameId: string;
  url: string;
  events: string[];
  format: 'svc' | 'discord' | 'slack' | 'standard';
  createdAt: string;
  disabledAt: string | null;
  previousSecretExpiresAt: string | null;
  secret?: string;
  standardSecret?: string;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MISSING_UUID = '0190a0b0-0000-7000-8000-00000000dead';

let t: TestApp;
/** A second instance on the same database with the SPEC default: private hosts refused. */
let strict: TestApp;

beforeAll(async () => {
  // Loopback urls are needed elsewhere; here the permissive instance proves the setting is honoured.
  // The worker stays off: these tests never want a delivery attempted.
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' });
  strict = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'false', WEBHOOK_WORKER_ENABLED: 'false' }, t.db);
});
afterAll(async () => {
  await strict?.close();
  await t?.close();
});

async function game(): Promise<{ gameId: string; auth: Record<string, string> }> {
  const g = await newGame(t);
  return { gameId: g.gameId, auth: bearer(g.key) };
}

let n = 0;
const someUrl = () => `https://hooks.example.com/h/${++n}`;

async function create(auth: Record<string, string>, body: Record<string, unknown> = {}, app: TestApp = t): Promise<Webhook> {
  const r = await app.http.post('/v1/webhooks').set(auth).send({ url: someUrl(), ...body });
  if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${r.text}`);
  return r.body as Webhook;
}

function expectError(r: { status: number; body: Record<string, unknown> }, status: number, code: string, field?: string): void {
  expect({ status: r.status, code: r.body.code }).toEqual({ status, code });
  expect(r.body.status).toBe(status);
  expect(typeof r.body.message).toBe('string');
  if (field) expect(r.body.message).toContain(field);
}

async function auditCount(action: string, targetId: string): Promise<number> {
  const [row] = await t.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${journalAudit()} WHERE action = $1 AND target_id = $2`, [action, targetId]);
  return Number(row.n);
}

// ---------------------------------------------------------------------------------------------

describe('POST /v1/webhooks', () => {
  it('a minimal body answers 201 with the endpoint fields and the secret', async () => {
    const { gameId, auth } = await game();
    const r = await t.http.post('/v1/webhooks').set(auth).send({ url: 'https://example.com/hook' });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['createdAt', 'disabledAt', 'events', 'format', 'gameId', 'id', 'previousSecretExpiresAt', 'secret', 'standardSecret', 'url']);
    expect(r.body).toEqual({
      id: expect.stringMatching(UUID),
      gameId,
      url: 'https://example.com/hook',
      events: [],
      format: 'svc',
      createdAt: expect.stringMatching(ISO_MS),
      disabledAt: null,
      previousSecretExpiresAt: null,
      secret: expect.any(String),
      standardSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    expect(Math.abs(Date.parse(r.body.createdAt) - Date.now())).toBeLessThan(60_000);
  });

  it('an omitted secret is generated: 32 random bytes as 43 base64url characters, different each time', async () => {
    const { auth } = await game();
    const a = await create(auth);
    const b = await create(auth);
    for (const s of [a.secret!, b.secret!]) {
      expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(s, 'base64url')).toHaveLength(32);
    }
    expect(a.secret).not.toBe(b.secret);
  });

  it('a supplied secret of 16 to 256 characters is returned verbatim; 15 and 257 are 400', async () => {
    const { auth } = await game();
    for (const secret of ['abcdefghijklmnop', 's'.repeat(256), 'sécret-ключ-🔑-0123']) {
      expect((await create(auth, { secret })).secret).toBe(secret);
    }
    // (An explicit null is read as "omitted" and gets a generated secret; SPEC does not say otherwise.)
    for (const secret of ['abcdefghijklmno', 's'.repeat(257), '', 1234567890123456789, ['a'.repeat(20)]]) {
      const r = await t.http.post('/v1/webhooks').set(auth).send({ url: someUrl(), secret });
      expectError(r, 400, 'bad_request', 'secret');
    }
  });

  it('the secret never lands in the audit entry', async () => {
    const { auth } = await game();
    const secret = 'audit-must-not-see-this-secret';
    const h = await create(auth, { secret, events: ['member.joined'], format: 'slack' });
    const rows = await t.db.query<{ payload: unknown; game_id: string }>(
      `SELECT payload, game_id FROM ${journalAudit()} WHERE action = 'webhook.created' AND target_id = $1`,
      [h.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].game_id).toBe(h.gameId);
    expect(JSON.stringify(rows[0].payload)).not.toContain(secret);
  });

  it('url: required, a string, http or https, an absolute URL, at most 2000 characters', async () => {
    const { auth } = await game();
    const bad: unknown[] = [undefined, null, 42, '', 'not a url', 'ftp://example.com/hook', 'mailto:ops@example.com', '/relative', `https://example.com/${'a'.repeat(1981)}`];
    for (const url of bad) {
      const r = await t.http.post('/v1/webhooks').set(auth).send(url === undefined ? { events: [] } : { url });
      expectError(r, 400, 'bad_request', 'url');
    }
    const at2000 = `https://example.com/${'a'.repeat(1980)}`;
    expect(at2000).toHaveLength(2000);
    expect((await create(auth, { url: at2000 })).url).toBe(at2000);
    expect((await create(auth, { url: 'http://example.com/plain' })).url).toBe('http://example.com/plain');
  });

  it('events: every one of the 30 event types is accepted; an unknown type or a non-array is 400', async () => {
    const { auth } = await game();
    expect(EVENT_TYPES).toHaveLength(30);
    const all = await create(auth, { events: [...EVENT_TYPES] });
    expect([...all.events].sort()).toEqual([...EVENT_TYPES].sort());
    const some = await create(auth, { events: ['member.joined', 'game.user.banned', 'friend.request.sent'] });
    expect([...some.events].sort()).toEqual(['friend.request.sent', 'game.user.banned', 'member.joined']);
    for (const events of [['member.exploded'], ['member.joined', 'nope'], 'member.joined', [42], [null], {}]) {
      expectError(await t.http.post('/v1/webhooks').set(auth).send({ url: someUrl(), events }), 400, 'bad_request', 'events');
    }
  });

  it('format: svc (default), discord, slack and standard are accepted; anything else is 400', async () => {
    const { auth } = await game();
    for (const format of ['svc', 'discord', 'slack', 'standard'] as const) expect((await create(auth, { format })).format).toBe(format);
    for (const format of ['teams', 'SVC', 'Standard', '', 1]) {
      expectError(await t.http.post('/v1/webhooks').set(auth).send({ url: someUrl(), format }), 400, 'bad_request', 'format');
    }
  });

  it('a malformed JSON body is 400 bad_request', async () => {
    const { auth } = await game();
    const r = await t.http.post('/v1/webhooks').set(auth).set('content-type', 'application/json').send('{"url": "https://example.com/x",');
    expectError(r, 400, 'bad_request');
  });

  it('without a key, or with a wrong one, every route is 401 invalid_api_key', async () => {
    const h = await create((await game()).auth);
    const wrong = bearer('jk_0000000000.not-a-real-secret');
    for (const headers of [{}, wrong]) {
      expectError(await t.http.post('/v1/webhooks').set(headers).send({ url: someUrl() }), 401, 'invalid_api_key');
      expectError(await t.http.get('/v1/webhooks').set(headers), 401, 'invalid_api_key');
      expectError(await t.http.patch(`/v1/webhooks/${h.id}`).set(headers).send({ disabled: true }), 401, 'invalid_api_key');
      expectError(await t.http.delete(`/v1/webhooks/${h.id}`).set(headers), 401, 'invalid_api_key');
    }
  });
});

describe('GET /v1/webhooks', () => {
  it('a fresh game has an empty page', async () => {
    const { auth } = await game();
    const r = await t.http.get('/v1/webhooks').set(auth);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: [], nextCursor: null });
  });

  it('lists newest first without secrets; every field of the create response but the secret', async () => {
    const { auth } = await game();
    const created: Webhook[] = [];
    for (let i = 0; i < 3; i++) {
      created.push(await create(auth, { secret: `list-secret-number-${i}`, events: i ? ['member.joined'] : [], format: (['svc', 'discord', 'slack'] as const)[i] }));
      await sleep(3);
    }
    const r = await t.http.get('/v1/webhooks').set(auth);
    expect(r.status).toBe(200);
    expect(r.body.nextCursor).toBeNull();
    expect(r.body.items).toEqual(
      created
        .reverse()
        .map(({ secret: _secret, standardSecret: _standard, ...rest }) => rest),
    );
    for (const it of r.body.items) expect(it).not.toHaveProperty('secret');
    expect(r.text).not.toContain('list-secret-number');
  });

  it('pages with limit and nextCursor: newest first, no overlap, no gap, null at the end', async () => {
    const { auth } = await game();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(auth)).id);
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const q: Record<string, string> = { limit: '2', ...(cursor ? { cursor } : {}) };
      const r = await t.http.get('/v1/webhooks').query(q).set(auth);
      expect(r.status).toBe(200);
      sizes.push(r.body.items.length);
      seen.push(...r.body.items.map((i: Webhook) => i.id));
      cursor = r.body.nextCursor;
    } while (cursor && sizes.length < 10);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual([...ids].reverse());
    // Ordering is createdAt desc, id desc: ids created in one millisecond still come out in one total order.
    const all = await t.http.get('/v1/webhooks').set(auth);
    expect(all.body.items.map((i: Webhook) => i.id)).toEqual(seen);
  });

  it('limit: 1 to 100 (the page cap); 0, 101, non-integers are 400 (not clamped)', async () => {
    const { auth } = await game();
    await create(auth);
    for (const limit of ['1', '100']) expect((await t.http.get('/v1/webhooks').query({ limit }).set(auth)).status).toBe(200);
    for (const limit of ['0', '101', '-1', 'abc', '1.5', '']) {
      expectError(await t.http.get('/v1/webhooks').query({ limit }).set(auth), 400, 'bad_request', 'limit');
    }
  });

  it('an unresolvable cursor is 400, and so is a cursor of another game', async () => {
    const a = await game();
    const b = await game();
    await create(a.auth);
    await create(a.auth);
    await create(b.auth);
    await create(b.auth);
    const page = await t.http.get('/v1/webhooks').query({ limit: '1' }).set(a.auth);
    expect(typeof page.body.nextCursor).toBe('string');
    expectError(await t.http.get('/v1/webhooks').query({ cursor: 'bogus' }).set(a.auth), 400, 'bad_request', 'cursor');
    expectError(await t.http.get('/v1/webhooks').query({ cursor: page.body.nextCursor }).set(b.auth), 400, 'bad_request', 'cursor');
    expect((await t.http.get('/v1/webhooks').query({ cursor: page.body.nextCursor }).set(a.auth)).status).toBe(200);
  });

  it('tenant isolation: a game lists only its own endpoints', async () => {
    const a = await game();
    const b = await game();
    const ha = await create(a.auth);
    const hb = await create(b.auth);
    const la = await t.http.get('/v1/webhooks').set(a.auth);
    const lb = await t.http.get('/v1/webhooks').set(b.auth);
    expect(la.body.items.map((i: Webhook) => i.id)).toEqual([ha.id]);
    expect(lb.body.items.map((i: Webhook) => i.id)).toEqual([hb.id]);
  });
});

describe('PATCH /v1/webhooks/:id', () => {
  it('replaces the url (revalidated) and answers the endpoint without the secret', async () => {
    const { auth } = await game();
    const h = await create(auth);
    const url = 'https://elsewhere.example.com/new';
    const r = await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ url });
    expect(r.status).toBe(200);
    const { secret: _s, standardSecret: _ss, ...rest } = h;
    expect(r.body).toEqual({ ...rest, url });
    expect(r.body).not.toHaveProperty('secret');
    for (const bad of ['gopher://example.com/', 'nope', `https://example.com/${'a'.repeat(1981)}`, null, 7]) {
      expectError(await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ url: bad }), 400, 'bad_request', 'url');
    }
    expect((await t.http.get('/v1/webhooks').set(auth)).body.items[0].url).toBe(url);
  });

  it('events replaces the list; [] means every type; unknown types are 400', async () => {
    const { auth } = await game();
    const h = await create(auth, { events: ['member.joined'] });
    const r1 = await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ events: ['game.user.banned', 'friend.removed'] });
    expect(r1.status).toBe(200);
    expect([...r1.body.events].sort()).toEqual(['friend.removed', 'game.user.banned']);
    const r2 = await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ events: [] });
    expect(r2.status).toBe(200);
    expect(r2.body.events).toEqual([]);
    for (const events of [['group.exploded'], 'member.joined', null]) {
      expectError(await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ events }), 400, 'bad_request', 'events');
    }
    expect((await t.http.get('/v1/webhooks').set(auth)).body.items[0].events).toEqual([]);
  });

  it('disabled true sets disabledAt, false clears it; a non-boolean is 400', async () => {
    const { auth } = await game();
    const h = await create(auth);
    const off = await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ disabled: true });
    expect(off.status).toBe(200);
    expect(off.body.disabledAt).toMatch(ISO_MS);
    expect((await t.http.get('/v1/webhooks').set(auth)).body.items[0].disabledAt).toBe(off.body.disabledAt);
    const on = await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ disabled: false });
    expect(on.status).toBe(200);
    expect(on.body.disabledAt).toBeNull();
    for (const disabled of ['true', 1, null]) {
      expectError(await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ disabled }), 400, 'bad_request', 'disabled');
    }
  });

  it('format changes; an unknown format is 400', async () => {
    const { auth } = await game();
    const h = await create(auth);
    const r = await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ format: 'discord' });
    expect(r.status).toBe(200);
    expect(r.body.format).toBe('discord');
    expectError(await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ format: 'xml' }), 400, 'bad_request', 'format');
  });

  it('several fields at once; the list reflects them; each real change writes one audit entry', async () => {
    const { auth } = await game();
    const h = await create(auth);
    const url = 'https://multi.example.com/x';
    const r = await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ url, events: ['game.user.unbanned'], disabled: true, format: 'slack' });
    expect(r.status).toBe(200);
    const [it] = (await t.http.get('/v1/webhooks').set(auth)).body.items;
    expect(it).toMatchObject({ id: h.id, url, events: ['game.user.unbanned'], format: 'slack', disabledAt: expect.stringMatching(ISO_MS), createdAt: h.createdAt });
    expect(await auditCount('webhook.updated', h.id)).toBe(1);
  });

  it('an empty body, or one with only unknown fields, is 400', async () => {
    const { auth } = await game();
    const h = await create(auth);
    expectError(await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({}), 400, 'bad_request');
    expectError(await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ secret: 'a-new-secret-please' }), 400, 'bad_request');
    expectError(await t.http.patch(`/v1/webhooks/${h.id}`).set(auth), 400, 'bad_request');
  });

  it('a no-op answers 200 with the endpoint and writes nothing', async () => {
    const { auth } = await game();
    const h = await create(auth, { events: ['member.joined', 'member.left'], format: 'discord' });
    const { secret: _s, standardSecret: _ss, ...view } = h;
    const noops = [
      { url: h.url },
      { events: ['member.left', 'member.joined'] },
      { format: 'discord' },
      { disabled: false },
      { url: h.url, events: ['member.joined', 'member.left'], format: 'discord', disabled: false },
    ];
    for (const body of noops) {
      const r = await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send(body);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(view);
    }
    expect(await auditCount('webhook.updated', h.id)).toBe(0);
    // disabled true twice: the second keeps the first disabledAt and writes nothing.
    const first = await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ disabled: true });
    await sleep(5);
    const second = await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ disabled: true });
    expect(second.status).toBe(200);
    expect(second.body.disabledAt).toBe(first.body.disabledAt);
    expect(await auditCount('webhook.updated', h.id)).toBe(1);
  });

  it('events naming the current types with a repeat is a no-op too: 200, nothing written', async () => {
    const { auth } = await game();
    const h = await create(auth, { events: ['member.joined'] });
    const r = await t.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ events: ['member.joined', 'member.joined'] });
    expect(r.status).toBe(200);
    expect(r.body.events).toEqual(['member.joined']);
    expect(await auditCount('webhook.updated', h.id)).toBe(0);
  });

  it('an unknown id, a non-uuid id, or another game\'s endpoint is 404 and changes nothing', async () => {
    const a = await game();
    const b = await game();
    const h = await create(a.auth);
    expectError(await t.http.patch(`/v1/webhooks/${MISSING_UUID}`).set(a.auth).send({ disabled: true }), 404, 'not_found');
    expectError(await t.http.patch('/v1/webhooks/not-a-uuid').set(a.auth).send({ disabled: true }), 404, 'not_found');
    expectError(await t.http.patch(`/v1/webhooks/${h.id}`).set(b.auth).send({ disabled: true, url: 'https://evil.example.com/' }), 404, 'not_found');
    const [it] = (await t.http.get('/v1/webhooks').set(a.auth)).body.items;
    expect(it).toMatchObject({ id: h.id, url: h.url, disabledAt: null });
  });
});

describe('DELETE /v1/webhooks/:id', () => {
  it('answers 204 with no body; a second call is 404; the endpoint leaves the list and PATCH is 404', async () => {
    const { auth } = await game();
    const keep = await create(auth);
    const gone = await create(auth);
    const r = await t.http.delete(`/v1/webhooks/${gone.id}`).set(auth);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expectError(await t.http.delete(`/v1/webhooks/${gone.id}`).set(auth), 404, 'not_found');
    expectError(await t.http.patch(`/v1/webhooks/${gone.id}`).set(auth).send({ disabled: true }), 404, 'not_found');
    expect((await t.http.get('/v1/webhooks').set(auth)).body.items.map((i: Webhook) => i.id)).toEqual([keep.id]);
    expect(await auditCount('webhook.deleted', gone.id)).toBe(1);
  });

  it('removes the endpoint\'s pending deliveries', async () => {
    const { gameId, auth } = await game();
    const h = await create(auth);
    const other = await create(auth);
    const banned = async (userId: string) => {
      expect((await t.http.post('/v1/bans').set(auth).send({ userId })).status).toBe(201);
      const [e] = await t.db.query<{ id: string }>(
        `SELECT id FROM ${journalEvents()} WHERE game_id = $1 AND type = 'game.user.banned' AND body->>'svcUserId' = $2`,
        [gameId, userId],
      );
      return e.id;
    };
    // A commit writes no delivery row: each endpoint's queue is the events after its position.
    await banned('cheater');
    // And a row, as 1.8.0's commits wrote them (a retry's row is the same to the deletion).
    const withRow = await banned('griefer');
    await rowAsCommitted(t.db, h.id, withRow);
    const pending = async (id: string) => {
      const r = await t.http.get(`/v1/webhooks/${id}/deliveries`).query({ status: 'pending' }).set(auth);
      return r.status === 200 ? (r.body.items as { attempts: number }[]).length : r.status;
    };
    const left = async (id: string) => {
      const [r] = await t.db.query<{ rows: number; positions: number; untaken: number }>(
        `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE endpoint_id = $1) AS rows,
                (SELECT count(*)::int FROM webhook_positions WHERE endpoint_id = $1) AS positions,
                (SELECT count(*)::int FROM (${untakenSql('p.endpoint_id = $1')}) u) AS untaken`,
        [id],
      );
      return r;
    };
    expect(await pending(h.id)).toBe(2);
    expect(await pending(other.id)).toBe(2);
    expect(await left(h.id)).toEqual({ rows: 1, positions: 1, untaken: 1 });
    expect(await left(other.id)).toEqual({ rows: 0, positions: 1, untaken: 2 });

    expect((await t.http.delete(`/v1/webhooks/${h.id}`).set(auth)).status).toBe(204);
    // Without its position nothing is queued for it any more: the worker takes up deliveries by position.
    expect(await left(h.id)).toEqual({ rows: 0, positions: 0, untaken: 0 });
    expect(await pending(h.id)).toBe(404);
    expect(await left(other.id)).toEqual({ rows: 0, positions: 1, untaken: 2 });
    expect(await pending(other.id)).toBe(2);
  });

  it('an unknown or non-uuid id is 404; another game\'s endpoint is 404 and stays', async () => {
    const a = await game();
    const b = await game();
    const h = await create(a.auth);
    expectError(await t.http.delete(`/v1/webhooks/${MISSING_UUID}`).set(a.auth), 404, 'not_found');
    expectError(await t.http.delete('/v1/webhooks/xyz').set(a.auth), 404, 'not_found');
    expectError(await t.http.delete(`/v1/webhooks/${h.id}`).set(b.auth), 404, 'not_found');
    expect((await t.http.get('/v1/webhooks').set(a.auth)).body.items.map((i: Webhook) => i.id)).toEqual([h.id]);
  });
});

describe('private hosts (WEBHOOK_ALLOW_PRIVATE_HOSTS)', () => {
  const PRIVATE = [
    'http://127.0.0.1/hook',
    'http://127.0.0.1:9999/hook',
    'http://localhost/hook',
    'http://sub.localhost/hook',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://172.31.255.255/',
    'http://192.168.1.1/',
    'http://169.254.169.254/',
    'http://100.64.0.1/',
    'http://100.127.255.255/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[::ffff:127.0.0.1]/',
    // the special-purpose blocks and IPv4-in-IPv6 forms of DECISIONS §25, and IPv4 shorthand
    'http://198.18.0.1/',
    'http://240.0.0.1/',
    'http://[fec0::1]/',
    'http://[::ffff:0:127.0.0.1]/',
    'http://[2002:7f00:1::]/',
    'http://[64:ff9b::10.0.0.1]/',
    'http://2130706433/',
    'http://0x7f.1/',
  ];
  const PUBLIC = [
    'https://example.com/hook',
    'http://172.15.0.1/',
    'http://172.32.0.1/',
    'http://100.63.0.1/',
    'http://100.128.0.1/',
    'http://[2606:4700:4700::1111]/',
    'http://[2002:808:808::1]/',
  ];

  it('true: private-network urls are accepted', async () => {
    const { auth } = await game();
    for (const url of PRIVATE) expect((await create(auth, { url })).url).toBe(url);
  });

  it('false: private-network urls are 400 on create, naming the url; public ones are accepted', async () => {
    const g = await newGame(strict);
    const auth = bearer(g.key);
    for (const url of PRIVATE) expectError(await strict.http.post('/v1/webhooks').set(auth).send({ url }), 400, 'bad_request', 'url');
    for (const url of PUBLIC) expect((await create(auth, { url }, strict)).url).toBe(url);
    expect((await strict.http.get('/v1/webhooks').set(auth)).body.items).toHaveLength(PUBLIC.length);
  });

  it('false: a PATCH to a private url is 400 and leaves the url as it was', async () => {
    const g = await newGame(strict);
    const auth = bearer(g.key);
    const h = await create(auth, {}, strict);
    for (const url of PRIVATE) expectError(await strict.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ url }), 400, 'bad_request', 'url');
    expect((await strict.http.get('/v1/webhooks').set(auth)).body.items[0].url).toBe(h.url);
  });

  it('false: an endpoint already stored with a private url can still be patched in other ways (DECISIONS §25)', async () => {
    const g = await newGame(t);
    const auth = bearer(g.key);
    const h = await create(auth, { url: 'http://127.0.0.1:9/hook' }); // stored through the permissive instance
    const r = await strict.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ disabled: true, events: ['member.joined'] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ url: 'http://127.0.0.1:9/hook', events: ['member.joined'], disabledAt: expect.stringMatching(ISO_MS) });
    expect((await strict.http.patch(`/v1/webhooks/${h.id}`).set(auth).send({ disabled: false, format: 'slack' })).status).toBe(200);
  });

  it('the default (setting unset) refuses private hosts', async () => {
    const dflt = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' }, t.db);
    try {
      const g = await newGame(dflt);
      const auth = bearer(g.key);
      expectError(await dflt.http.post('/v1/webhooks').set(auth).send({ url: 'http://127.0.0.1/hook' }), 400, 'bad_request', 'url');
      expectError(await dflt.http.post('/v1/webhooks').set(auth).send({ url: 'http://localhost/hook' }), 400, 'bad_request', 'url');
      expect((await dflt.http.post('/v1/webhooks').set(auth).send({ url: 'https://example.com/ok' })).status).toBe(201);
    } finally {
      await dflt.close();
    }
  });
});
