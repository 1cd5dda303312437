import { insertDeliveries } from '../helpers/webhook-deliveries';
import { AUTO, befriend, block, friendsClient, patchGameConfig } from '../helpers/friends';
import { postGroup } from '../helpers/groups';
import { UUID } from '../helpers/shapes';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * DECISIONS 32: a cursor the service did not issue, or one whose values do not parse, is 400
 * `bad_request` naming `cursor`, never 500. On every route with a `cursor` query parameter, a real
 * page's nextCursor is taken apart and each of its values forged in turn, scope and arity kept, so
 * that only the value can be what the route refuses.
 */

type Auth = Record<string, string>;

/** Values a client could forge in place of a cursor's own, by the kind of value they replace. */
const FORGED: Record<Kind, unknown[]> = {
  // Date.parse takes the first five and PostgreSQL refuses them; the last two are not the form the service writes.
  timestamp: ['0', '2020-02-30', '+275760-09-13T00:00:00.000Z', '2020-02-30T00:00:00.000Z', '0000-01-01T00:00:00.000Z', '2020-01-01T00:00:00Z', 7],
  uuid: ['0190a5c8-0000-7000-8000-00000000000g', '0190A5C8-0000-7000-8000-000000000000', 'not-a-uuid', 1],
  number: [1.5, -1, 2 ** 31, 2 ** 53, 1e300, '1'],
  text: ['a\u0000b', 'x'.repeat(1001), 1],
};

type Kind = 'timestamp' | 'uuid' | 'number' | 'text';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const kindOf = (v: unknown): Kind =>
  typeof v === 'number' ? 'number' : typeof v === 'string' && ISO_MS.test(v) ? 'timestamp' : typeof v === 'string' && UUID.test(v) ? 'uuid' : 'text';

/** The page's nextCursor: the body's own, or that of the page it holds (a user's memberships). */
const nextCursorOf = (body: Record<string, unknown>): string | undefined =>
  [body, ...Object.values(body)].map((v) => (v && typeof v === 'object' ? (v as { nextCursor?: unknown }).nextCursor : undefined)).find((c): c is string => typeof c === 'string');

const decode = (cursor: string): unknown[] => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
const encode = (parts: unknown[]): string => Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');

describe('forged cursors on every paged route (DECISIONS 32)', () => {
  let t: TestApp;
  /** Operation (`GET /v1/...` as in the API document) → the urls of its pages to forge from, with the credentials they need. */
  let routes: Map<string, { urls: string[]; auth: Auth }>;
  let gameId: string;
  let auth: Auth;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
    ({ gameId, auth } = await authedGame(t, 'cursors'));
    await patchGameConfig(t, gameId, { config: AUTO });
    routes = await arrange(t, gameId, auth);
  });
  afterAll(() => t.close());

  it('covers every operation of the API document that takes a cursor', async () => {
    const doc = (await t.http.get('/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>> };
    const paged = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => (op.parameters ?? []).some((p) => p.in === 'query' && p.name === 'cursor'))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect([...routes.keys()].sort()).toEqual(paged.sort());
  });

  it('refuses every forged value of every paged route with 400 naming cursor, and still pages with the real cursor', async () => {
    const wrong: string[] = [];
    const kinds = new Set<Kind>();
    for (const [op, { urls, auth }] of routes) {
      for (const url of urls) {
        const get = (cursor?: string) => t.http.get(`${url}${url.includes('?') ? '&' : '?'}limit=1${cursor ? `&cursor=${cursor}` : ''}`).set(auth);
        const first = await get();
        const real = first.status === 200 ? nextCursorOf(first.body) : undefined;
        if (!real) throw new Error(`${op} ${url}: no second page to forge from (${first.status} ${first.text.slice(0, 300)})`);
        const again = await get(real);
        if (again.status !== 200) wrong.push(`${op} ${url}: the real cursor answered ${again.status} ${again.text}`);
        const [scope, ...values] = decode(real);
        for (const [i, value] of values.entries()) {
          kinds.add(kindOf(value));
          for (const forged of FORGED[kindOf(value)]) {
            const parts = [scope, ...values];
            parts[i + 1] = forged;
            const r = await get(encode(parts));
            const named = r.body?.code === 'bad_request' && r.body?.status === 400 && /\bcursor\b/.test(String(r.body?.message));
            if (r.status !== 400 || !named) wrong.push(`${op} ${url}: value ${i} (${kindOf(value)}) = ${JSON.stringify(forged).slice(0, 40)} → ${r.status} ${r.text.slice(0, 160)}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    // The search's sorts carry a number (members, relevance) and a text (name): each kind was forged.
    expect([...kinds].sort()).toEqual(['number', 'text', 'timestamp', 'uuid']);
  });

  it('refuses the same forged times as the audit routes’ before (their cursor) with 400 naming before', async () => {
    const group = (await t.http.get('/v1/groups?limit=1').set(auth)).body.items[0].id as string;
    const audits: [string, Auth][] = [
      [`/v1/groups/${group}/audit`, auth],
      [`/v1/admin/games/${gameId}/audit`, asAdmin],
      [`/v1/admin/games/${gameId}/groups/${group}/audit`, asAdmin],
    ];
    const wrong: string[] = [];
    for (const [url, as] of audits) {
      const first = await t.http.get(`${url}?limit=1`).set(as);
      const again = await t.http.get(`${url}?limit=1&before=${first.body.nextCursor}`).set(as);
      if (again.status !== 200) wrong.push(`${url}: its own nextCursor answered ${again.status}`);
      for (const before of ['0', '2020-02-30', '+275760-09-13T00:00:00.000Z', '0000-01-01', '2020-01-01T00:00:00+23:59']) {
        const r = await t.http.get(`${url}?before=${encodeURIComponent(before)}`).set(as);
        if (r.status !== 400 || r.body.code !== 'bad_request' || !/^before /.test(r.body.message)) wrong.push(`${url} before=${before} → ${r.status} ${r.text.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

/**
 * One game with two rows (at least) in every paged list, so that a page of one has a nextCursor;
 * and the urls that page them, by operation.
 */
async function arrange(t: TestApp, gameId: string, auth: Auth): Promise<Map<string, { urls: string[]; auth: Auth }>> {
  const call = async (method: 'post' | 'put' | 'delete', path: string, body?: object, as: Auth = auth) => {
    const r = await t.http[method](path).set(as).send(body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const open = await postGroup(t, auth, { kind: 'guild', name: 'Knights of Dawn', visibility: 'public', creatorUserId: 'alice' });
  const closed = await postGroup(t, auth, { kind: 'guild', name: 'Knights of Dusk', visibility: 'invite-only', creatorUserId: 'alice' });
  const other = await postGroup(t, auth, { kind: 'guild', name: 'Sentinels', visibility: 'invite-only' });
  for (const name of ['Scouts', 'Riders']) {
    const child = await postGroup(t, auth, { kind: 'party', name, visibility: 'public' });
    await call('put', `/v1/groups/${child.id}/parent`, { parentGroupId: open.id });
  }
  await call('post', `/v1/groups/${open.id}/join`, { userId: 'bob' });
  for (const g of [open.id, closed.id]) await call('post', `/v1/groups/${g}/members/alice/permissions/cursors.key`, { allowed: true });
  // Two notifications for bob, whom the game knows (his join): invitations targeted at him.
  for (let i = 0; i < 2; i++) await call('post', `/v1/groups/${closed.id}/invitations`, { targetUserId: 'bob' });
  await call('post', `/v1/groups/${closed.id}/invitations`, { targetUserId: 'carol' });
  await call('post', `/v1/groups/${closed.id}/invitations`, { targetUserId: 'carol' });
  for (const g of [closed.id, other.id]) await call('post', `/v1/groups/${g}/join-requests`, { userId: 'dave' });
  await call('post', `/v1/groups/${closed.id}/join-requests`, { userId: 'erin' });
  for (const userId of ['mallory', 'trent']) await call('post', '/v1/bans', { userId, reason: 'cheating' });
  await call('delete', '/v1/bans/trent');
  await call('post', '/v1/bans', { userId: 'trent' });
  // Two subjects in the reports queue, three reports in the list.
  for (const [reporterUserId, id] of [['rita', 'mallory'], ['sam', 'mallory'], ['rita', 'trent']]) {
    await call('post', '/v1/reports', { reporterUserId, subject: { type: 'user', id }, category: 'cheating' });
  }
  const friends = friendsClient(t, gameId, auth.authorization.replace(/^Bearer /, ''));
  for (const f of ['frank', 'grace']) await befriend(friends, 'alice', f);
  for (const b of ['heidi', 'ivan']) if ((await block(friends, 'alice', b)).status !== 201) throw new Error('block');
  for (const u of ['zed', 'zoe']) await call('delete', `/v1/users/${u}`);
  const hooks = [];
  for (const n of [1, 2]) hooks.push(await call('post', '/v1/webhooks', { url: `https://hooks.example.com/${n}` }));
  await insertDeliveries(t, hooks[0].id as string, 2);

  const searches = (base: string) => ['', '?sort=newest', '?sort=name', '?q=knights&sort=relevance'].map((q) => `${base}${q}`);
  const admin = `/v1/admin/games/${gameId}`;
  const as = (a: Auth) => (urls: string[]) => ({ urls, auth: a });
  const key = as(auth);
  const root = as(asAdmin);
  return new Map([
    ['GET /v1/groups', key(['/v1/groups'])],
    ['GET /v1/groups/{id}/children', key([`/v1/groups/${open.id}/children`])],
    ['GET /v1/groups/{id}/members', key([`/v1/groups/${open.id}/members`])],
    ['GET /v1/groups/{id}/invitations', key([`/v1/groups/${closed.id}/invitations`])],
    ['GET /v1/users/{userId}/invitations', key(['/v1/users/carol/invitations'])],
    ['GET /v1/groups/{id}/join-requests', key([`/v1/groups/${closed.id}/join-requests`])],
    ['GET /v1/users/{userId}/join-requests', key(['/v1/users/dave/join-requests'])],
    ['GET /v1/users/{userId}/groups', key(['/v1/users/alice/groups?permission=cursors.key'])],
    ['GET /v1/users/{userId}/notifications', key(['/v1/users/bob/notifications', '/v1/users/bob/notifications?unread=true'])],
    ['GET /v1/admin/games/{gameId}/users/{externalUserId}/notifications', root([`${admin}/users/bob/notifications`])],
    ['GET /v1/admin/games/{gameId}/groups/{groupId}/join-requests', root([`${admin}/groups/${closed.id}/join-requests`])],
    ['GET /v1/groups/search', key(searches('/v1/groups/search'))],
    ['GET /v1/admin/games/{gameId}/groups/search', root(searches(`${admin}/groups/search`))],
    ['GET /v1/bans', key(['/v1/bans'])],
    ['GET /v1/bans/{userId}/history', key(['/v1/bans/trent/history'])],
    ['GET /v1/admin/games/{gameId}/bans', root([`${admin}/bans`])],
    ['GET /v1/admin/games/{gameId}/reports', root([`${admin}/reports`, `${admin}/reports?status=open&subjectType=user`])],
    ['GET /v1/admin/games/{gameId}/reports/subjects', root([`${admin}/reports/subjects`])],
    ['GET /v1/admin/games/{gameId}/users/{externalUserId}', root([`${admin}/users/alice`])],
    ['GET /v1/users/{userId}/friends', key(['/v1/users/alice/friends'])],
    ['GET /v1/users/{userId}/blocks', key(['/v1/users/alice/blocks'])],
    ['GET /v1/admin/erasures', root(['/v1/admin/erasures'])],
    ['GET /v1/webhooks', key(['/v1/webhooks'])],
    ['GET /v1/admin/games/{gameId}/webhooks', root([`${admin}/webhooks`])],
    ['GET /v1/webhooks/{id}/deliveries', key([`/v1/webhooks/${hooks[0].id}/deliveries`])],
    ['GET /v1/admin/games/{gameId}/webhooks/{id}/deliveries', root([`${admin}/webhooks/${hooks[0].id}/deliveries`])],
  ]);
}
