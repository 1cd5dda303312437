import { MemberCountFolder } from '../../src/groups/member-count-folder';
import { expectError } from '../helpers/errors';
import { joinOk, postGroup } from '../helpers/groups';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * GET /v1/groups/search (EXTENSIONS X5) and its admin twin: what a player looking for a group
 * finds, in which order, page by page, and what is refused.
 */
let t: TestApp;
let folder: MemberCountFolder;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  folder = t.app.get(MemberCountFolder);
});
afterAll(() => t.close());

type Auth = Record<string, string>;
interface Group {
  id: string;
  name: string;
  kind: string;
  visibility: string;
  tags: string[];
  maxMembers: number | null;
  memberCount: number;
  createdAt: string;
}
interface Page {
  items: Group[];
  nextCursor: string | null;
}

const search = (auth: Auth, query: Record<string, string | number>) => t.http.get('/v1/groups/search').set(auth).query(query);

async function found(auth: Auth, query: Record<string, string | number>): Promise<Group[]> {
  const r = await search(auth, query);
  if (r.status !== 200) throw new Error(`search: ${r.status} ${r.text}`);
  return (r.body as Page).items;
}
const names = async (auth: Auth, query: Record<string, string | number>) => (await found(auth, query)).map((g) => g.name);

/** Every page of a search, following nextCursor with `limit`. */
async function allPages(auth: Auth, query: Record<string, string | number>, limit: number): Promise<Group[]> {
  const seen: Group[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const r = await search(auth, { ...query, limit, ...(cursor ? { cursor } : {}) });
    if (r.status !== 200) throw new Error(`search page: ${r.status} ${r.text}`);
    const page = r.body as Page;
    expect(page.items.length).toBeLessThanOrEqual(limit);
    seen.push(...page.items);
    if (!page.nextCursor) return seen;
    expect(page.items.length).toBe(limit);
    cursor = page.nextCursor;
  }
  throw new Error('more than 100 pages');
}

const group = (auth: Auth, name: string, extra: Record<string, unknown> = {}) =>
  postGroup<Group>(t, auth, { kind: 'guild', name, visibility: 'public', ...extra });

/** Sets a group's folded member counter straight in the database (no member rows: memberCount reads the counter). */
const setCount = (id: string, n: number) => t.db.query('UPDATE groups SET active_member_count = $2 WHERE id = $1', [id, n]);

describe('matching q', () => {
  let auth: Auth;
  beforeAll(async () => {
    ({ auth } = await authedGame(t));
    for (const name of ['Knights of Dawn', 'Night Owls', 'Échos du Néant', 'Dawnbreakers', 'Straße der Ritter']) await group(auth, name);
  });

  it.each([
    ['knights', ['Knights of Dawn']],
    ['KNÍGHTS', ['Knights of Dawn']],
    ['dawn', ['Dawnbreakers', 'Knights of Dawn']],
    ['knigths', ['Knights of Dawn']],
    ['Knights dawn', ['Knights of Dawn']],
    ['  dawn   KNIGHTS ', ['Knights of Dawn']],
    ['echos neant', ['Échos du Néant']],
    ['NÉANT', ['Échos du Néant']],
    ['strasse', ['Straße der Ritter']],
    ['knights dusk', []],
    ['owl', ['Night Owls']],
    ['knights, of!', ['Knights of Dawn']],
  ])('q=%j finds %j', async (q, expected) => {
    expect((await names(auth, { q })).sort()).toEqual([...expected].sort());
  });

  it('finds a renamed group by its new name only', async () => {
    const g = await group(auth, 'Iron Circle');
    expect(await names(auth, { q: 'iron' })).toEqual(['Iron Circle']);
    expect((await t.http.patch(`/v1/groups/${g.id}`).set(auth).send({ name: 'Silver Circle' })).status).toBe(200);
    expect(await names(auth, { q: 'iron' })).toEqual([]);
    expect(await names(auth, { q: 'silvre' })).toEqual(['Silver Circle']);
  });

  it('ranks a name starting with the query above one containing it, above a match by spelling distance; ties by id', async () => {
    const { auth: a } = await authedGame(t);
    const contains2 = await group(a, 'The Knights Who Say Ni');
    const typo = await group(a, 'Knigths Templar');
    const starts2 = await group(a, 'Knights of the Round Table');
    const starts1 = await group(a, 'knights of dawn');
    const contains1 = await group(a, 'Order of Knights');
    await group(a, 'Night Owls');
    const ids = (await found(a, { q: 'knights' })).map((g) => g.id);
    const byId = (x: Group, y: Group) => (x.id < y.id ? -1 : 1);
    expect(ids).toEqual([...[starts1, starts2].sort(byId), ...[contains1, contains2].sort(byId), typo].map((g) => g.id));
    expect(await found(a, { q: 'knights', sort: 'relevance' })).toEqual(await found(a, { q: 'knights' }));
  });
});

describe('what is never found', () => {
  it('secret groups, soft-deleted groups and groups of another game, in any sort', async () => {
    const { auth } = await authedGame(t);
    const { auth: other } = await authedGame(t);
    const seen = await group(auth, 'Knights Visible');
    await group(auth, 'Knights Invite', { visibility: 'invite-only' });
    await group(auth, 'Knights Secret', { visibility: 'secret' });
    const gone = await group(auth, 'Knights Deleted');
    expect((await t.http.delete(`/v1/groups/${gone.id}`).set(auth)).status).toBe(200);
    await group(other, 'Knights Elsewhere', { tags: ['lang:en'] });
    for (const query of <Record<string, string>[]>[{ q: 'knights' }, { q: 'knigths' }, {}, { sort: 'newest' }, { sort: 'name' }, { q: 'knights', sort: 'members' }]) {
      expect((await names(auth, query)).sort()).toEqual(['Knights Invite', 'Knights Visible']);
    }
    expect(await names(auth, { tags: 'lang:en' })).toEqual([]);
    // Restored, it is found again.
    expect((await t.http.post(`/v1/groups/${gone.id}/restore`).set(auth)).status).toBe(200);
    expect((await names(auth, { q: 'deleted' }))).toEqual(['Knights Deleted']);
    expect(seen.id).toBeDefined();
  });
});

describe('filters', () => {
  let auth: Auth;
  const g: Record<string, Group> = {};
  beforeAll(async () => {
    ({ auth } = await authedGame(t));
    g.en = await group(auth, 'Alpha', { tags: ['lang:en', 'region:eu', 'casual'] });
    g.enNa = await group(auth, 'Bravo', { tags: ['lang:en', 'region:na'] });
    g.de = await group(auth, 'Charlie', { tags: ['lang:de', 'region:eu'], kind: 'clan' });
    g.full = await group(auth, 'Delta', { maxMembers: 3, tags: ['region:eu'] });
    g.roomy = await group(auth, 'Echo', { maxMembers: 10 });
    g.invite = await group(auth, 'Foxtrot', { visibility: 'invite-only', tags: ['lang:en'] });
    g.none = await group(auth, 'Golf');
    await setCount(g.en.id, 5);
    await setCount(g.enNa.id, 2);
    await setCount(g.de.id, 9);
    await setCount(g.full.id, 3);
    await setCount(g.roomy.id, 9);
    await setCount(g.invite.id, 1);
  });
  const sorted = async (query: Record<string, string | number>) => (await names(auth, query)).sort();

  it('kind is exact', async () => {
    expect(await sorted({ kind: 'clan' })).toEqual(['Charlie']);
    expect(await sorted({ kind: 'Clan' })).toEqual([]);
  });

  it('tags: a group carries every one', async () => {
    expect(await sorted({ tags: 'lang:en' })).toEqual(['Alpha', 'Bravo', 'Foxtrot']);
    expect(await sorted({ tags: 'lang:en,region:eu' })).toEqual(['Alpha']);
    expect(await sorted({ tags: 'region:eu,lang:en,lang:en' })).toEqual(['Alpha']);
    expect(await sorted({ tags: 'region:eu' })).toEqual(['Alpha', 'Charlie', 'Delta']);
    expect(await sorted({ tags: 'pvp' })).toEqual([]);
  });

  it('open=true: public and below maxMembers (no cap is never full)', async () => {
    expect(await sorted({ open: 'true' })).toEqual(['Alpha', 'Bravo', 'Charlie', 'Echo', 'Golf']);
    expect(await sorted({ open: 'true', tags: 'region:eu' })).toEqual(['Alpha', 'Charlie']);
  });

  it('membersAtLeast and membersAtMost are inclusive, alone or together', async () => {
    expect(await sorted({ membersAtLeast: 5 })).toEqual(['Alpha', 'Charlie', 'Echo']);
    expect(await sorted({ membersAtMost: 2 })).toEqual(['Bravo', 'Foxtrot', 'Golf']);
    expect(await sorted({ membersAtLeast: 3, membersAtMost: 5 })).toEqual(['Alpha', 'Delta']);
    expect(await sorted({ membersAtLeast: 9, membersAtMost: 9 })).toEqual(['Charlie', 'Echo']);
    expect(await sorted({ membersAtLeast: 0 })).toHaveLength(7);
  });

  it('combine with q and with each other', async () => {
    expect(await sorted({ q: 'alpha', tags: 'lang:en', open: 'true', membersAtLeast: 5, kind: 'guild' })).toEqual(['Alpha']);
    expect(await sorted({ q: 'alpha', kind: 'clan' })).toEqual([]);
  });
});

describe('sorts', () => {
  let auth: Auth;
  beforeAll(async () => {
    ({ auth } = await authedGame(t));
  });

  it('members (the default without q): most first, ties by id descending', async () => {
    const a = await group(auth, 'one');
    const b = await group(auth, 'two');
    const c = await group(auth, 'three');
    await setCount(a.id, 4);
    await setCount(b.id, 7);
    await setCount(c.id, 4);
    const tie = [a, c].sort((x, y) => (x.id < y.id ? 1 : -1)).map((x) => x.id);
    expect((await found(auth, {})).map((x) => x.id)).toEqual([b.id, ...tie]);
    expect((await found(auth, { sort: 'members' })).map((x) => x.id)).toEqual([b.id, ...tie]);
    expect((await found(auth, {})).map((x) => x.memberCount)).toEqual([7, 4, 4]);
  });

  it('newest first, and name A-Z ignoring case and accents', async () => {
    const { auth: a } = await authedGame(t);
    for (const name of ['banana', 'Édith', 'apple', 'Zebra', 'eagle', 'Apple']) await group(a, name);
    expect(await names(a, { sort: 'newest' })).toEqual(['Apple', 'eagle', 'Zebra', 'apple', 'Édith', 'banana']);
    const byName = await found(a, { sort: 'name' });
    expect(byName.map((x) => x.name.toLowerCase())).toEqual(['apple', 'apple', 'banana', 'eagle', 'édith', 'zebra']);
    const apples = byName.slice(0, 2).map((x) => x.id);
    expect(apples).toEqual([...apples].sort());
  });

  it('with q, every sort orders the matches only', async () => {
    const { auth: a } = await authedGame(t);
    const x = await group(a, 'Wolves of the North');
    const y = await group(a, 'Northern Wolves');
    await group(a, 'Eagles');
    await setCount(x.id, 1);
    await setCount(y.id, 8);
    expect(await names(a, { q: 'wolves', sort: 'members' })).toEqual(['Northern Wolves', 'Wolves of the North']);
    expect(await names(a, { q: 'wolves', sort: 'name' })).toEqual(['Northern Wolves', 'Wolves of the North']);
    expect(await names(a, { q: 'wolves', sort: 'newest' })).toEqual(['Northern Wolves', 'Wolves of the North']);
    expect(await names(a, { q: 'wolves' })).toEqual(['Wolves of the North', 'Northern Wolves']);
  });

  it('memberCount is exact, even before the folder has counted the latest join', async () => {
    const { auth: a } = await authedGame(t);
    const g = await group(a, 'Counted');
    await joinOk(t, a, g.id, 'u1');
    await joinOk(t, a, g.id, 'u2');
    expect((await found(a, { q: 'counted' }))[0].memberCount).toBe(2);
    await folder.fold();
    expect((await found(a, { membersAtLeast: 2 })).map((x) => [x.name, x.memberCount])).toEqual([['Counted', 2]]);
  });
});

describe('paging', () => {
  let auth: Auth;
  const created: Group[] = [];
  beforeAll(async () => {
    ({ auth } = await authedGame(t));
    const words = ['Raven', 'raven', 'Ravens', 'Ravenna', 'Black Raven', 'Ravne', 'Crow'];
    for (let i = 0; i < 47; i++) {
      const g = await group(auth, `${words[i % words.length]} ${String.fromCharCode(97 + (i % 5))}`, { tags: i % 3 ? ['lang:en'] : ['lang:de'] });
      created.push(g);
      // Counts with many ties, so that ties by id matter.
      await setCount(g.id, i % 4);
    }
  });

  it.each([
    ['members', {}],
    ['newest', { sort: 'newest' }],
    ['name', { sort: 'name' }],
    ['relevance', { q: 'raven' }],
    ['members, with q', { q: 'raven', sort: 'members' }],
    ['name, with a filter', { sort: 'name', tags: 'lang:en' }],
  ])('%s: every group exactly once, in the order of one big page', async (_sort, query: Record<string, string>) => {
    const whole = await found(auth, { ...query, limit: 100 });
    expect(whole.length).toBeGreaterThan(10);
    for (const limit of [1, 7, 20]) {
      const paged = await allPages(auth, query, limit);
      expect(paged.map((g) => g.id)).toEqual(whole.map((g) => g.id));
    }
  });

  it('the relevance pages cross the ranks', async () => {
    const whole = await found(auth, { q: 'raven', limit: 100 });
    // 41 of the 47: Raven, raven, Ravens, Ravenna and Black Raven hold the word, Ravne is a
    // spelling-distance match (the last rank), Crow is no match.
    expect(whole).toHaveLength(41);
    expect(whole.slice(-6).every((g) => g.name.startsWith('Ravne'))).toBe(true);
    expect(whole.slice(-12, -6).every((g) => g.name.startsWith('Black Raven'))).toBe(true);
  });

  it('a group added or removed meanwhile does not make the others repeat or go missing', async () => {
    const whole = await found(auth, { sort: 'name', limit: 100 });
    const first = (await search(auth, { sort: 'name', limit: 10 })).body as Page;
    expect(first.items.map((g) => g.id)).toEqual(whole.slice(0, 10).map((g) => g.id));
    const extra = await group(auth, 'Aaa first by name');
    const removed = whole[25];
    expect((await t.http.delete(`/v1/groups/${removed.id}`).set(auth)).status).toBe(200);
    const rest = await allPages(auth, { sort: 'name', cursor: first.nextCursor! }, 10);
    const ids = [...first.items, ...rest].map((g) => g.id);
    expect(ids).toEqual(whole.map((g) => g.id).filter((id) => id !== removed.id));
    expect(ids).not.toContain(extra.id);
  });
});

describe('refusals: 400 naming the parameter', () => {
  let auth: Auth;
  let cursor: string;
  beforeAll(async () => {
    ({ auth } = await authedGame(t));
    for (const name of ['one', 'two', 'three']) await group(auth, name);
    cursor = ((await search(auth, { q: 'o', limit: 1 })).body as Page).nextCursor!;
    expect(cursor).toBeTruthy();
  });

  it.each<[string, Record<string, string | number>, string]>([
    ['an empty q', { q: '' }, 'q'],
    ['a q of 121 characters', { q: 'a'.repeat(121) }, 'q'],
    ['a q of punctuation only', { q: '!?' }, 'q'],
    ['an unknown sort', { sort: 'popular' }, 'sort'],
    ['sort=relevance without q', { sort: 'relevance' }, 'relevance'],
    ['limit 0', { limit: 0 }, 'limit'],
    ['limit 101', { limit: 101 }, 'limit'],
    ['limit abc', { limit: 'abc' }, 'limit'],
    ['an upper-case tag', { tags: 'Lang:en' }, 'tags'],
    ['an empty tag', { tags: 'lang:en,' }, 'tags'],
    ['empty tags', { tags: '' }, 'tags'],
    ['11 tags', { tags: Array.from({ length: 11 }, (_, i) => `t${i}`).join(',') }, 'tags'],
    ['open=false', { open: 'false' }, 'open'],
    ['open=1', { open: '1' }, 'open'],
    ['a negative membersAtLeast', { membersAtLeast: -1 }, 'membersAtLeast'],
    ['a fractional membersAtMost', { membersAtMost: '2.5' }, 'membersAtMost'],
    ['membersAtLeast above membersAtMost', { membersAtLeast: 5, membersAtMost: 4 }, 'membersAtLeast'],
    ['an empty kind', { kind: '' }, 'kind'],
    ['a kind of 65 characters', { kind: 'k'.repeat(65) }, 'kind'],
    ['a cursor that is not one', { cursor: 'nonsense!' }, 'cursor'],
  ])('%s', async (_what, query, name) => {
    const r = await search(auth, query);
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain(name);
  });

  it('a repeated parameter', async () => {
    const r = await t.http.get('/v1/groups/search?q=a&q=b').set(auth);
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('q');
  });

  it.each<[string, Record<string, string | number>]>([
    ['another q', { q: 't' }],
    ['another sort', { q: 'o', sort: 'name' }],
    ['another filter', { q: 'o', tags: 'pvp' }],
    ['no q', {}],
  ])('a cursor of another search: %s', async (_what, query) => {
    const r = await search(auth, { ...query, cursor });
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('cursor');
  });

  it('a cursor of the same search in another game', async () => {
    const { auth: other } = await authedGame(t);
    const r = await search(other, { q: 'o', cursor });
    expectError(r, 400, 'bad_request');
  });

  it('the same search takes its cursor, whatever the limit', async () => {
    expect((await search(auth, { q: 'o', cursor, limit: 5 })).status).toBe(200);
  });

  it('needs the API key', async () => {
    expectError(await t.http.get('/v1/groups/search'), 401, 'invalid_api_key');
  });
});

describe('the route beside /v1/groups/:id, and the admin twin', () => {
  it('GET /v1/groups/:id still answers a group; /v1/groups/search is the search', async () => {
    const { auth } = await authedGame(t);
    const g = await group(auth, 'Lone Wolf');
    expect((await t.http.get(`/v1/groups/${g.id}`).set(auth)).body.name).toBe('Lone Wolf');
    expect(await names(auth, {})).toEqual(['Lone Wolf']);
  });

  it("GET /v1/admin/games/:gameId/groups/search answers as the game's key would; an unknown game is 404", async () => {
    const { auth, gameId } = await authedGame(t);
    for (const name of ['Sea Wolves', 'Wolf Pack', 'Bears']) await group(auth, name, { tags: ['lang:en'] });
    await group(auth, 'Wolf Secret', { visibility: 'secret' });
    const asKey = await search(auth, { q: 'wolf', limit: 1 });
    const admin = (query: Record<string, string | number>) => t.http.get(`/v1/admin/games/${gameId}/groups/search`).set(asAdmin).query(query);
    const asOperator = await admin({ q: 'wolf', limit: 1 });
    expect(asOperator.status).toBe(200);
    expect(asOperator.body).toEqual(asKey.body);
    const next = await admin({ q: 'wolf', limit: 1, cursor: asOperator.body.nextCursor });
    expect(next.body).toEqual((await search(auth, { q: 'wolf', limit: 1, cursor: asKey.body.nextCursor })).body);
    expectError(await admin({ sort: 'relevance' }), 400, 'bad_request');
    expectError(await t.http.get('/v1/admin/games/01900000-0000-7000-8000-00000000dead/groups/search').set(asAdmin), 404, 'not_found');
    expectError(await t.http.get(`/v1/admin/games/${gameId}/groups/search`), 401, 'invalid_admin_token');
  });
});
