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

  it.each([
    // Offsets that carry a valid local time past the years PostgreSQL reads back in ISO form.
    '0001-01-01T00:00:00+23:59',
    '9999-12-31T23:59:59-23:59',
    '0',
    '2020-02-30T00:00:00.000Z',
    '+275760-09-13T00:00:00.000Z',
    '0000-01-01T00:00:00.000Z',
    '2020-01-01T00:00:00+24:00',
  ])('since=%s is 400 naming since, never 500', async (since) => {
    const r = await list(`?since=${encodeURIComponent(since)}`);
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toMatch(/^since /);
  });

  it('since takes any zone and the earliest and latest instants of years 1 to 9999', async () => {
    for (const since of ['2020-01-01T00:00:00+23:59', '0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '2026-01-01']) {
      expect((await list(`?since=${encodeURIComponent(since)}`)).status).toBe(200);
    }
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

  it('every field of every entry is checked before any query: 400 naming the entry and field, nothing applied', async () => {
    const g = await game();
    const entry = await erased(g, 'eve');
    await member(g, 'eve');
    await t.db.query('DELETE FROM erasures WHERE id = $1', [entry.id]);
    const bad: [keyof Entry, unknown][] = [
      // Date.parse takes these and PostgreSQL refuses them (500 before).
      ['erasedAt', '2020-02-30T00:00:00.000Z'],
      ['erasedAt', '0'],
      ['erasedAt', '+275760-09-13T00:00:00.000Z'],
      ['erasedAt', '2020-01-01T00:00:00.000+23:59'],
      ['erasedAt', '0000-01-01T00:00:00.000Z'],
      ['erasedAt', '2020-01-01T24:00:00.000Z'],
      // Not the form the ledger is listed in: the entry would not be the one exported.
      ['erasedAt', '2020-01-01T00:00:00Z'],
      ['erasedAt', '2020-01-01T00:00:00.000123Z'],
      ['erasedAt', 1700000000000],
      ['erasedAt', null],
      ['id', '0190A000-0000-7000-8000-000000000001'],
      ['id', '0190a000-0000-7000-8000-00000000000g'],
      ['id', 7],
      ['gameId', 'not-a-uuid'],
      ['gameId', g.gameId.toUpperCase()],
      ['gameId', { id: g.gameId }],
      ['subjectHash', 'A'.repeat(64)],
      ['subjectHash', 'a'.repeat(63)],
      ['subjectHash', ['a'.repeat(64)]],
    ];
    const wrong: string[] = [];
    const filler = { ...entry, id: '0190a000-0000-7000-8000-0000000000f1' };
    for (const [field, value] of bad) {
      const r = await apply({ items: [filler, filler, filler, { ...entry, [field]: value }] });
      const named = r.status === 400 && r.body.code === 'bad_request' && String(r.body.message).includes(`items.3.${field}`);
      if (!named) wrong.push(`${field}=${JSON.stringify(value)} → ${r.status} ${r.text.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
    expect(await identityOf(t, g.gameId, 'eve')).not.toBeNull();
    expect(await t.db.query('SELECT 1 FROM erasures WHERE id = ANY ($1::uuid[])', [[entry.id, filler.id]])).toEqual([]);
  });

  it.each([[[null]], [[1]], [['entry']], [[[]]]])('an entry that is not an object (%j) is 400 naming items.0', async (items) => {
    const r = await apply({ items });
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('items.0');
  });

  it('takes back exactly what the list wrote, the first and last millisecond of years 1 to 9999 included', async () => {
    const g = await game();
    const at = ['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z'];
    const items = at.map((erasedAt, i) => ({ id: `0190a000-0000-7000-8000-00000000a${i}${g.gameId.slice(-2)}`, gameId: g.gameId, subjectHash: hashOf(g.gameId, `x${i}`), erasedAt }));
    expect((await apply({ items })).body).toEqual({ applied: 2, erased: 0 });
    const back = await list(`?since=${encodeURIComponent(at[0])}&limit=1000`);
    expect((back.body.items as Entry[]).filter((e) => e.gameId === g.gameId)).toEqual(items);
  });

  it('needs the admin token', async () => {
    expect((await t.http.post('/v1/admin/erasures/apply').send({ items: [] })).status).toBe(401);
  });
});
