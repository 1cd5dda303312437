import { createHash } from 'node:crypto';
import { expectError } from '../helpers/errors';
import { friendsClient, type FriendsGame } from '../helpers/friends';
import { identityOf } from '../helpers/identities';
import { asAdmin, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/** The erasure ledger (EXTENSIONS X7): GET /v1/admin/erasures and POST /v1/admin/erasures/apply. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => t.close());

interface Entry {
  id: string;
  gameId: string;
  subjectHash: string;
  erasedAt: string;
}

const list = (query = '') => t.http.get(`/v1/admin/erasures${query}`).set(asAdmin);
const apply = (body: unknown) => t.http.post('/v1/admin/erasures/apply').set(asAdmin).send(body as object);
const hashOf = (gameId: string, userId: string) => createHash('sha256').update(`${gameId}:${userId}`).digest('hex');

async function game(): Promise<FriendsGame> {
  const { gameId, key } = await newGame(t, 'ledger');
  return friendsClient(t, gameId, key);
}

async function erased(g: FriendsGame, userId: string): Promise<Entry> {
  const r = await g.del(`/v1/users/${encodeURIComponent(userId)}`);
  expect(r.status).toBe(200);
  const page = await list(`?since=${encodeURIComponent(r.body.erasedAt as string)}&limit=1000`);
  const entry = (page.body.items as Entry[]).find((e) => e.gameId === g.gameId && e.subjectHash === hashOf(g.gameId, userId));
  expect(entry).toBeDefined();
  return entry!;
}

async function member(g: FriendsGame, userId: string): Promise<string> {
  const r = await g.post('/v1/groups', { kind: 'guild', name: 'ledger', visibility: 'public', creatorUserId: userId });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

describe('GET /v1/admin/erasures', () => {
  it('lists every erasure oldest first, by pages, from `since` on; never an id', async () => {
    const g = await game();
    const mark = new Date().toISOString();
    const ids = ['l1', 'l2', 'l3', 'l4', 'l5'];
    for (const id of ids) await erased(g, id);
    const seen: Entry[] = [];
    let cursor: string | null = null;
    do {
      const r = await list(`?since=${encodeURIComponent(mark)}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...(r.body.items as Entry[]));
      cursor = r.body.nextCursor as string | null;
    } while (cursor);
    const mine = seen.filter((e) => e.gameId === g.gameId);
    expect(mine.map((e) => e.subjectHash)).toEqual(ids.map((id) => hashOf(g.gameId, id)));
    const order = seen.map((e) => `${e.erasedAt} ${e.id}`);
    expect(order).toEqual([...order].sort());
    expect(JSON.stringify(seen)).not.toMatch(/"l[1-5]"/);
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=1001', 'limit'],
    ['?since=yesterday', 'since'],
    ['?cursor=nonsense', 'cursor'],
  ])('%s is 400 naming %s', async (query, field) => {
    const r = await list(query);
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain(field);
  });

  it('needs the admin token', async () => {
    expect((await t.http.get('/v1/admin/erasures')).status).toBe(401);
  });
});

describe('POST /v1/admin/erasures/apply', () => {
  it('erases again a user who came back under an erased id, and nobody else; applying twice erases nothing more', async () => {
    const g = await game();
    await member(g, 'eve');
    const entry = await erased(g, 'eve');
    const groupId = await member(g, 'eve');
    await member(g, 'bob');
    expect(await identityOf(t, g.gameId, 'eve')).not.toBeNull();

    const r = await apply({ items: [entry] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ applied: 1, erased: 1 });
    expect(await identityOf(t, g.gameId, 'eve')).toBeNull();
    expect(await identityOf(t, g.gameId, 'bob')).not.toBeNull();
    expect((await g.get(`/v1/groups/${groupId}`)).body).toMatchObject({ memberCount: 0, ownerUserId: null });
    const [ledger] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM erasures WHERE game_id = $1', [g.gameId]);
    expect(ledger.n).toBe(1);

    expect((await apply({ items: [entry] })).body).toEqual({ applied: 1, erased: 0 });
  });

  it('restores the entries the ledger lost, and ignores games this database does not have', async () => {
    const g = await game();
    const entry = await erased(g, 'eve');
    await t.db.query('DELETE FROM erasures WHERE id = $1', [entry.id]);
    const stranger = { id: '0190a000-0000-7000-8000-000000000001', gameId: '00000000-0000-4000-8000-0000000000aa', subjectHash: 'a'.repeat(64), erasedAt: entry.erasedAt };
    expect((await apply({ items: [entry, stranger] })).body).toEqual({ applied: 2, erased: 0 });
    const rows = await t.db.query<{ id: string }>('SELECT id FROM erasures WHERE id = ANY ($1::uuid[]) ORDER BY id', [[entry.id, stranger.id]]);
    expect(rows.map((r) => r.id).sort()).toEqual([entry.id, stranger.id].sort());
  });

  it('a malformed ledger is 400 naming the entry, and applies nothing', async () => {
    const g = await game();
    const entry = await erased(g, 'eve');
    await member(g, 'eve');
    await t.db.query('DELETE FROM erasures WHERE id = $1', [entry.id]);
    const bad = [
      [{ items: [entry, { ...entry, id: 'x' }] }, 'items.1.id'],
      [{ items: [entry, { ...entry, subjectHash: 'EVE' }] }, 'items.1.subjectHash'],
      [{ items: [{ ...entry, erasedAt: 'soon' }] }, 'items.0.erasedAt'],
      [{ items: [{ gameId: entry.gameId }] }, 'items.0'],
      [{ items: 'all' }, 'items'],
      [{}, 'items'],
      [[entry], 'JSON object'],
    ] as const;
    for (const [body, field] of bad) {
      const r = await apply(body);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain(field);
    }
    expect(await identityOf(t, g.gameId, 'eve')).not.toBeNull();
    expect(await t.db.query('SELECT 1 FROM erasures WHERE id = $1', [entry.id])).toEqual([]);
  });

  it('needs the admin token', async () => {
    expect((await t.http.post('/v1/admin/erasures/apply').send({ items: [] })).status).toBe(401);
  });
});
