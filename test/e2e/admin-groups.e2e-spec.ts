import { randomUUID } from 'node:crypto';
import { postGroup, postJoin, postLeave } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { ISO_MS } from '../helpers/shapes';
import { asAdmin, authedGame, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * SPEC §4 Admin surface: GET /v1/admin/games/:gameId/groups (filters, sorts, offset pagination,
 * the 500-row limit of sort=memberCount), .../groups/:groupId, .../groups/:groupId/members and
 * .../groups/:groupId/audit; §8 page sizes and field limits; DECISIONS §28 (leftAt).
 */

interface AdminGroup {
  id: string;
  name: string;
  memberCount: number;
  [k: string]: unknown;
}

/** A group ban's end, a whole millisecond in the future. */
const BAN_ENDS = new Date(Date.now() + 7 * 86_400_000).toISOString();

describe('admin groups and members', () => {
  let t: TestApp;
  let gameId: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'admin groups'));
  });
  afterAll(() => t.close());

  const admin = (path: string) => t.http.get(path).set(asAdmin);
  const A = (id = gameId) => `/v1/admin/games/${id}`;
  const ids = (items: { id: string }[]) => items.map((i) => i.id);

  function createGroup(body: Record<string, unknown> = {}, as = auth): Promise<{ id: string; name: string }> {
    return postGroup(t, as, { kind: 'guild', name: uid('group'), visibility: 'public', ...body });
  }
  async function ok(req: Promise<{ status: number; text: string; body: unknown }>, status = 200) {
    const r = await req;
    if (r.status !== status) throw new Error(`expected ${status}, got ${r.status} ${r.text}`);
    return r;
  }
  const join = (groupId: string, userId: string) => ok(postJoin(t, auth, groupId, { userId }), 201);
  const leave = (groupId: string, userId: string) => ok(postLeave(t, auth, groupId, { userId }));
  const kick = (groupId: string, userId: string) =>
    ok(t.http.post(`/v1/groups/${groupId}/members/${encodeURIComponent(userId)}/kick`).set(auth).send({}));
  const softDelete = (groupId: string) => ok(t.http.delete(`/v1/groups/${groupId}`).set(auth));
  /** Pins createdAt so the orders below do not depend on how fast the groups were created. */
  const setCreatedAt = (groupId: string, iso: string) => t.db.query('UPDATE groups SET created_at = $2 WHERE id = $1', [groupId, iso]);

  function expectError(r: { status: number; body: { code?: string; message?: string } }, status: number, code: string, field?: string) {
    expect(r.status).toBe(status);
    expect(r.body.code).toBe(code);
    if (field) expect(r.body.message).toMatch(new RegExp(`^${field}\\b`));
  }

  describe('authentication', () => {
    it.each(['/groups', `/groups/${randomUUID()}`, `/groups/${randomUUID()}/members`, `/groups/${randomUUID()}/audit`])(
      '%s needs the admin token (none, wrong, or an API key: 401 invalid_admin_token)',
      async (suffix) => {
        for (const headers of [{}, bearer('jadm_not_the_token'), auth]) {
          const r = await t.http.get(`${A()}${suffix}`).set(headers);
          expectError(r, 401, 'invalid_admin_token');
        }
      },
    );
  });

  describe('GET /v1/admin/games/:gameId/groups', () => {
    let game: string;
    let big: { id: string }, mid: { id: string }, empty: { id: string }, party: { id: string }, child: { id: string };

    beforeAll(async () => {
      const g = await newGame(t, 'list');
      game = g.gameId;
      const as = bearer(g.key);
      big = await createGroup({ name: 'Wolves of the North', kind: 'guild', visibility: 'public', metadata: { tier: 3 } }, as);
      mid = await createGroup({ name: 'wolfpack', kind: 'guild', visibility: 'public' }, as);
      empty = await createGroup({ name: 'Bears', kind: 'guild', visibility: 'secret' }, as);
      party = await createGroup({ name: '50% off_sale', kind: 'party', visibility: 'public' }, as);
      child = await createGroup({ name: '50 percent', kind: 'party', visibility: 'public', defaultRoleId: 'r-1' }, as);
      for (let i = 0; i < 3; i++) await ok(t.http.post(`/v1/groups/${big.id}/join`).set(as).send({ userId: uid() }), 201);
      for (let i = 0; i < 2; i++) await ok(t.http.post(`/v1/groups/${mid.id}/join`).set(as).send({ userId: uid() }), 201);
      const u = uid();
      await ok(t.http.post(`/v1/groups/${party.id}/join`).set(as).send({ userId: u }), 201);
      await ok(t.http.post(`/v1/groups/${child.id}/join`).set(as).send({ userId: uid() }), 201);
      await ok(t.http.put(`/v1/groups/${child.id}/parent`).set(as).send({ parentGroupId: party.id }));
      const gone = await createGroup({ name: 'wolves deleted' }, as);
      await ok(t.http.delete(`/v1/groups/${gone.id}`).set(as));
      // createdAt: big oldest ... child newest; mid and empty share a millisecond.
      await setCreatedAt(big.id, '2024-01-01T00:00:00.000Z');
      await setCreatedAt(mid.id, '2024-01-02T00:00:00.000Z');
      await setCreatedAt(empty.id, '2024-01-02T00:00:00.000Z');
      await setCreatedAt(party.id, '2024-01-03T00:00:00.000Z');
      await setCreatedAt(child.id, '2024-01-04T00:00:00.000Z');
      await createGroup({ name: 'wolves of another game' }); // another game
    });
    const list = (qs = '') => admin(`${A(game)}/groups${qs}`);
    /** mid and empty tie on createdAt: id ascending decides, in both directions. */
    const tied = () => [mid.id, empty.id].sort();

    it('lists the live groups newest first (ties by id ascending) with total and hasMore', async () => {
      const r = await list();
      expect(r.status).toBe(200);
      expect(ids(r.body.items)).toEqual([child.id, party.id, ...tied(), big.id]);
      expect(r.body.total).toBe(5);
      expect(r.body.hasMore).toBe(false);
    });

    it('items are exactly WireAdminGroup: no passcode flag, no soft-deletion field', async () => {
      const r = await list();
      const c = r.body.items.find((i: AdminGroup) => i.id === child.id);
      expect(c).toEqual({
        id: child.id,
        gameId: game,
        kind: 'party',
        name: '50 percent',
        visibility: 'public',
        metadata: {},
        defaultRoleId: 'r-1',
        parentGroupId: party.id,
        tags: [],
        maxMembers: null,
        ownerUserId: null,
        memberCount: 1,
        createdAt: '2024-01-04T00:00:00.000Z',
        updatedAt: expect.stringMatching(ISO_MS),
      });
      expect(r.body.items.find((i: AdminGroup) => i.id === big.id)).toMatchObject({ memberCount: 3, metadata: { tier: 3 } });
    });

    it('order=asc lists oldest first; ties stay id ascending', async () => {
      const r = await list('?order=asc');
      expect(ids(r.body.items)).toEqual([big.id, ...tied(), party.id, child.id]);
    });

    it('sort=name is case-insensitive, in both orders, ties by id ascending', async () => {
      const asc = await list('?sort=name&order=asc');
      expect(asc.body.items.map((i: AdminGroup) => i.name)).toEqual([
        '50 percent',
        '50% off_sale',
        'Bears',
        'wolfpack',
        'Wolves of the North',
      ]);
      const desc = await list('?sort=name');
      expect(desc.body.items.map((i: AdminGroup) => i.name)).toEqual([
        'Wolves of the North',
        'wolfpack',
        'Bears',
        '50% off_sale',
        '50 percent',
      ]);
    });

    it('sort=memberCount orders by active members; equal counts fall to id ascending in both orders', async () => {
      const ones = [party.id, child.id].sort();
      const desc = await list('?sort=memberCount');
      expect(ids(desc.body.items)).toEqual([big.id, mid.id, ...ones, empty.id]);
      const asc = await list('?sort=memberCount&order=asc');
      expect(ids(asc.body.items)).toEqual([empty.id, ...ones, mid.id, big.id]);
    });

    it('q is a case-insensitive substring of the name; % and _ match themselves', async () => {
      const wolves = await list('?q=WOL');
      expect(new Set(ids(wolves.body.items))).toEqual(new Set([big.id, mid.id]));
      expect(wolves.body.total).toBe(2);
      const pct = await list(`?q=${encodeURIComponent('50%')}`);
      expect(ids(pct.body.items)).toEqual([party.id]);
      const under = await list(`?q=${encodeURIComponent('f_s')}`);
      expect(ids(under.body.items)).toEqual([party.id]);
      const none = await list(`?q=${encodeURIComponent('_')}`);
      expect(ids(none.body.items)).toEqual([party.id]);
    });

    it('kind and visibility match exactly; every filter is AND-combined', async () => {
      expect(ids((await list('?kind=party')).body.items)).toEqual([child.id, party.id]);
      expect((await list('?kind=part')).body).toEqual({ items: [], total: 0, hasMore: false });
      expect(ids((await list('?visibility=secret')).body.items)).toEqual([empty.id]);
      expect(ids((await list('?visibility=invite-only')).body.items)).toEqual([]);
      const r = await list('?kind=guild&visibility=public&q=wolves');
      expect(ids(r.body.items)).toEqual([big.id]);
      expect(r.body.total).toBe(1);
    });

    it('limit and offset page through; total counts every match; hasMore is offset + items < total', async () => {
      const p1 = await list('?limit=2');
      expect(p1.body).toMatchObject({ total: 5, hasMore: true });
      expect(ids(p1.body.items)).toEqual([child.id, party.id]);
      const p2 = await list('?limit=2&offset=2');
      expect(ids(p2.body.items)).toEqual(tied());
      expect(p2.body.hasMore).toBe(true);
      const p3 = await list('?limit=2&offset=4');
      expect(ids(p3.body.items)).toEqual([big.id]);
      expect(p3.body.hasMore).toBe(false);
      const past = await list('?offset=50');
      expect(past.body).toEqual({ items: [], total: 5, hasMore: false });
    });

    it.each<[string, string, string]>([
      ['limit 0', '?limit=0', 'limit'],
      ['limit 101', '?limit=101', 'limit'],
      ['offset -1', '?offset=-1', 'offset'],
      ['offset 1.5', '?offset=1.5', 'offset'],
      ['an empty q', '?q=', 'q'],
      ['q of 121 characters', `?q=${'a'.repeat(121)}`, 'q'],
      ['an empty kind', '?kind=', 'kind'],
      ['kind of 65 characters', `?kind=${'k'.repeat(65)}`, 'kind'],
      ['an unknown visibility', '?visibility=hidden', 'visibility'],
      ['an unknown sort', '?sort=updatedAt', 'sort'],
      ['an unknown order', '?order=up', 'order'],
      ['a repeated q', '?q=a&q=b', 'q'],
    ])('%s is 400 naming the field', async (_case, qs, field) => {
      expectError(await list(qs), 400, 'bad_request', field);
    });

    it('limit 100 and q of 120 characters are accepted', async () => {
      expect((await list('?limit=100')).status).toBe(200);
      expect((await list(`?q=${'a'.repeat(120)}`)).body).toEqual({ items: [], total: 0, hasMore: false });
    });

    it('an unknown or malformed game is 404', async () => {
      expectError(await admin(`${A(randomUUID())}/groups`), 404, 'not_found');
      expectError(await admin(`${A('nope')}/groups`), 404, 'not_found');
    });
  });

  describe('sort=memberCount is limited to 500 matching groups', () => {
    let game: string;
    beforeAll(async () => {
      game = (await newGame(t, 'many groups')).gameId;
      // 500 guilds and 1 raid, straight into the table.
      await t.db.query(
        `INSERT INTO groups (id, game_id, kind, name, visibility, active_member_count)
         SELECT gen_random_uuid(), $1, CASE WHEN i = 0 THEN 'raid' ELSE 'guild' END, 'g' || i, 'public', i % 7
         FROM generate_series(0, 500) i`,
        [game],
      );
    });
    const list = (qs: string) => admin(`${A(game)}/groups${qs}`);

    it('501 matching groups: 400 bad_request naming the limit', async () => {
      const r = await list('?sort=memberCount');
      expectError(r, 400, 'bad_request', 'sort');
      expect(r.body.message).toMatch(/500/);
    });

    it('exactly 500 matching groups: allowed, sorted, with total 500', async () => {
      const r = await list('?sort=memberCount&kind=guild&limit=100&offset=400');
      expect(r.status).toBe(200);
      expect(r.body.total).toBe(500);
      expect(r.body.hasMore).toBe(false);
      const counts = r.body.items.map((i: AdminGroup) => i.memberCount);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
    });

    it('the other sorts have no such limit', async () => {
      const r = await list('?sort=name');
      expect(r.status).toBe(200);
      expect(r.body.total).toBe(501);
    });
  });

  describe('GET /v1/admin/games/:gameId/groups/:groupId', () => {
    it('returns the live group as WireAdminGroup', async () => {
      const creator = uid();
      const g = await createGroup({ kind: 'clan', metadata: { a: 1 }, creatorUserId: creator, tags: ['lang:en'], maxMembers: 40 });
      const r = await admin(`${A()}/groups/${g.id}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        id: g.id,
        gameId,
        kind: 'clan',
        name: g.name,
        visibility: 'public',
        metadata: { a: 1 },
        defaultRoleId: null,
        parentGroupId: null,
        tags: ['lang:en'],
        maxMembers: 40,
        ownerUserId: creator,
        memberCount: 1,
        createdAt: expect.stringMatching(ISO_MS),
        updatedAt: expect.stringMatching(ISO_MS),
      });
    });

    it('404 for a soft-deleted group, a group of another game, an unknown or malformed id, an unknown game', async () => {
      const g = await createGroup();
      const other = await newGame(t, 'other');
      await softDelete(g.id);
      const live = await createGroup();
      for (const path of [
        `${A()}/groups/${g.id}`,
        `${A(other.gameId)}/groups/${live.id}`,
        `${A()}/groups/${randomUUID()}`,
        `${A()}/groups/not-a-uuid`,
        `${A(randomUUID())}/groups/${live.id}`,
      ]) {
        expectError(await admin(path), 404, 'not_found');
      }
    });
  });

  describe('GET /v1/admin/games/:gameId/groups/:groupId/members', () => {
    let group: { id: string };
    let officer: { id: string }, recruit: { id: string }, leader: { id: string };
    const hero = `Hero_${randomUUID().slice(0, 6)}`;
    const plain = uid('plain');
    const gone = uid('gone');
    const booted = uid('booted');
    const back = uid('back');
    const pct = `50%_${randomUUID().slice(0, 6)}`;

    beforeAll(async () => {
      group = await createGroup({ creatorUserId: hero });
      for (const u of [plain, gone, booted, back, pct]) await join(group.id, u);
      await leave(group.id, gone);
      await kick(group.id, booted);
      await leave(group.id, back);
      await join(group.id, back); // rejoined: leftAt cleared
      const role = async (name: string, priority: number, color?: string) =>
        (await ok(t.http.post(`/v1/groups/${group.id}/roles`).set(auth).send({ name, priority, ...(color ? { color } : {}) }), 201))
          .body as { id: string };
      recruit = await role('Recruit', -1);
      leader = await role('Leader', 100, '#00ff00');
      officer = await role('Officer', 10, '#ff0000');
      for (const r of [recruit, leader, officer]) {
        await ok(t.http.post(`/v1/groups/${group.id}/members/${hero}/roles/${r.id}`).set(auth));
      }
      await ok(t.http.post(`/v1/groups/${group.id}/members/${gone}/roles/${officer.id}`).set(auth));
      await ok(t.http.post(`/v1/groups/${group.id}/bans`).set(auth).send({ userId: uid('banned'), expiresAt: BAN_ENDS }), 201);
      await ok(t.http.patch(`/v1/groups/${group.id}/members/${plain}`).set(auth).send({ metadata: { k: 1 }, notesPrivate: 'watch' }));
    });
    const members = (qs = '') => admin(`${A()}/groups/${group.id}/members${qs}`);
    const ext = (items: { externalUserId: string }[]) => items.map((i) => i.externalUserId);

    it('defaults to the active members, newest join first, with total and hasMore', async () => {
      const r = await members();
      expect(r.status).toBe(200);
      expect(ext(r.body.items).sort()).toEqual([hero, plain, back, pct].sort());
      expect(r.body.total).toBe(4);
      expect(r.body.hasMore).toBe(false);
      const joined = r.body.items.map((i: { joinedAt: string }) => i.joinedAt);
      expect(joined).toEqual([...joined].sort().reverse());
    });

    it('items carry the internal svcUserId, notes, metadata, leftAt and roles as objects (priority descending)', async () => {
      const r = await members();
      const h = r.body.items.find((i: { externalUserId: string }) => i.externalUserId === hero);
      const [identity] = await t.db.query<{ user_id: string }>(
        'SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2',
        [gameId, hero],
      );
      expect(h).toEqual({
        id: expect.any(String),
        groupId: group.id,
        externalUserId: hero,
        svcUserId: identity.user_id,
        status: 'active',
        metadata: {},
        notesPublic: null,
        notesPrivate: null,
        joinedAt: expect.stringMatching(ISO_MS),
        leftAt: null,
        bannedUntil: null,
        timedOutUntil: null,
        roles: [
          { id: leader.id, name: 'Leader', priority: 100, color: '#00ff00', isDefault: false },
          { id: officer.id, name: 'Officer', priority: 10, color: '#ff0000', isDefault: false },
          { id: recruit.id, name: 'Recruit', priority: -1, color: null, isDefault: false },
        ],
      });
      const p = r.body.items.find((i: { externalUserId: string }) => i.externalUserId === plain);
      expect(p).toMatchObject({ metadata: { k: 1 }, notesPrivate: 'watch', roles: [] });
    });

    it('a member who left and rejoined is active again with leftAt null (DECISIONS §28)', async () => {
      const r = await members(`?q=${back}`);
      expect(r.body.items).toHaveLength(1);
      expect(r.body.items[0]).toMatchObject({ status: 'active', leftAt: null });
    });

    it('status filters: left (with leftAt and kept roles), kicked, banned, invited, all', async () => {
      const left = await members('?status=left');
      expect(ext(left.body.items)).toEqual([gone]);
      expect(left.body.items[0].leftAt).toMatch(ISO_MS);
      expect(left.body.items[0].roles.map((r: { id: string }) => r.id)).toEqual([officer.id]);
      expect(ext((await members('?status=kicked')).body.items)).toEqual([booted]);
      const banned = await members('?status=banned');
      expect(banned.body.items).toHaveLength(1);
      expect(banned.body.items[0].status).toBe('banned');
      // When the group ban ends; null in every other status.
      expect(banned.body.items[0].bannedUntil).toBe(BAN_ENDS);
      const all = await members('?status=all');
      for (const m of all.body.items as { status: string; bannedUntil: string | null }[]) {
        if (m.status !== 'banned') expect(m.bannedUntil).toBeNull();
      }
      expect((await members('?status=invited')).body).toEqual({ items: [], total: 0, hasMore: false });
      expect(all.body.total).toBe(7);
    });

    it('q is a case-insensitive substring of the external id; % and _ match themselves', async () => {
      expect(ext((await members(`?q=${hero.toUpperCase()}`)).body.items)).toEqual([hero]);
      expect(ext((await members(`?q=${encodeURIComponent('50%_')}`)).body.items)).toEqual([pct]);
      expect(ext((await members(`?q=${encodeURIComponent('%')}`)).body.items)).toEqual([pct]);
      expect((await members('?q=zzzz-nobody')).body).toEqual({ items: [], total: 0, hasMore: false });
    });

    it('limit and offset page through every match', async () => {
      const all = ext((await members('?status=all&limit=100')).body.items);
      const pages: string[] = [];
      for (let offset = 0; offset < 7; offset += 3) {
        const r = await members(`?status=all&limit=3&offset=${offset}`);
        expect(r.body.total).toBe(7);
        expect(r.body.hasMore).toBe(offset + 3 < 7);
        pages.push(...ext(r.body.items));
      }
      expect(pages).toEqual(all);
    });

    it.each<[string, string, string]>([
      ['limit 101', '?limit=101', 'limit'],
      ['limit abc', '?limit=abc', 'limit'],
      ['offset -3', '?offset=-3', 'offset'],
      ['an unknown status', '?status=gone', 'status'],
      ['an empty q', '?q=', 'q'],
      ['q of 256 characters', `?q=${'q'.repeat(256)}`, 'q'],
    ])('%s is 400 naming the field', async (_case, qs, field) => {
      expectError(await members(qs), 400, 'bad_request', field);
    });

    it('q of 255 characters is accepted', async () => {
      expect((await members(`?q=${'q'.repeat(255)}`)).status).toBe(200);
    });

    it('404 for an unknown game, an unknown or soft-deleted group, or a group of another game', async () => {
      const other = await newGame(t, 'members other');
      const doomed = await createGroup();
      await softDelete(doomed.id);
      for (const path of [
        `${A(randomUUID())}/groups/${group.id}/members`,
        `${A(other.gameId)}/groups/${group.id}/members`,
        `${A()}/groups/${randomUUID()}/members`,
        `${A()}/groups/${doomed.id}/members`,
      ]) {
        expectError(await admin(path), 404, 'not_found');
      }
    });
  });

  describe('GET /v1/admin/games/:gameId/groups/:groupId/audit', () => {
    let group: { id: string; name: string };
    let sibling: { id: string };
    const creator = uid('creator');

    beforeAll(async () => {
      group = await createGroup({ creatorUserId: creator });
      await join(group.id, uid());
      await t.http.patch(`/v1/groups/${group.id}`).set(auth).send({ name: 'renamed' });
      sibling = await createGroup();
    });
    const audit = (qs = '', id = group.id) => admin(`${A()}/groups/${id}/audit${qs}`);

    it("lists only that group's entries, newest first, as admin audit items", async () => {
      const r = await audit();
      expect(r.status).toBe(200);
      expect(r.body.nextCursor).toBeNull();
      const actions = r.body.items.map((i: { action: string }) => i.action);
      expect(actions.slice(0, 2)).toEqual(['group.updated', 'member.joined']);
      // Written in one transaction, the creation and the creator's join share a timestamp: id descending decides.
      expect(actions.slice(2).sort()).toEqual(['group.created', 'member.joined']);
      expect(r.body.items[2].id > r.body.items[3].id).toBe(true);
      expect(r.body.items[0]).toEqual({
        id: expect.any(String),
        action: 'group.updated',
        gameId,
        gameName: 'admin groups',
        groupId: group.id,
        groupName: 'renamed',
        groupSoftDeleted: false,
        actorUserId: null,
        targetId: group.id,
        payload: expect.any(Object),
        createdAt: expect.stringMatching(ISO_MS),
      });
    });

    it('pages with before=<nextCursor>; a cursor of another group is 400', async () => {
      const p1 = await audit('?limit=3');
      expect(p1.body.items).toHaveLength(3);
      expect(p1.body.nextCursor).toBe(p1.body.items[2].id);
      const p2 = await audit(`?limit=3&before=${p1.body.nextCursor}`);
      expect(p2.body.items).toHaveLength(1);
      expect(p2.body.nextCursor).toBeNull();
      expect(ids([...p1.body.items, ...p2.body.items])).toEqual(ids((await audit()).body.items));
      const foreign = (await audit('', sibling.id)).body.items[0].id;
      expectError(await audit(`?before=${foreign}`), 400, 'bad_request', 'before');
    });

    it('filters by actions, targetId and actorUserId like the game audit', async () => {
      expect((await audit('?actions=member.joined')).body.items).toHaveLength(2);
      const mine = await audit(`?targetId=${creator}`);
      expect(mine.body.items.map((i: { action: string }) => i.action)).toEqual(['member.joined']);
      const actor = mine.body.items[0].actorUserId;
      expect((await audit(`?actorUserId=${actor}`)).body.items.map((i: { targetId: string }) => i.targetId)).toEqual([creator]);
      expectError(await audit('?actions=nope'), 400, 'bad_request', 'actions');
    });

    it('404 for a soft-deleted group, a group of another game and an unknown game', async () => {
      const doomed = await createGroup();
      await softDelete(doomed.id);
      const other = await newGame(t, 'audit other');
      expectError(await audit('', doomed.id), 404, 'not_found');
      expectError(await admin(`${A(other.gameId)}/groups/${group.id}/audit`), 404, 'not_found');
      expectError(await admin(`${A(randomUUID())}/groups/${group.id}/audit`), 404, 'not_found');
    });
  });
});
