import { FriendReadsRepository } from '../../src/friends/friend-reads.repository';
import { AUTO, befriend, block, friendIds, friendsGame, touch, U, uid, type FriendsGame } from '../helpers/friends';
import { indexPlanText } from '../helpers/plans';
import { captureDataSource } from '../helpers/statement-capture';
import { asAdmin, startTestApp, type TestApp } from '../helpers/test-app';

const enc = encodeURIComponent;
const PUBLIC_ALLOWED = { requestsRequired: false, visibility: { allowed: ['private', 'friends-only', 'public'] } };

/** SPEC §4 Friends: the friends list (keyset pages, rule 2 viewers), visibility, tags (rule 5). */
describe('friends list, visibility and tags', () => {
  let t: TestApp;
  let g: FriendsGame;
  beforeAll(async () => {
    t = await startTestApp();
    g = await friendsGame(t, AUTO);
  });
  afterAll(() => t.close());

  const setVisibility = (game: FriendsGame, userId: string, v: string) =>
    game.patch(`${U(userId)}/visibility`, { friendsListVisibility: v });
  const createTag = async (game: FriendsGame, userId: string, name: string, color?: string | null): Promise<string> => {
    const r = await game.post(`${U(userId)}/friend-tags`, color === undefined ? { name } : { name, color });
    if (r.status !== 201) throw new Error(`tag: ${r.status} ${r.text}`);
    return r.body.id;
  };
  const putTags = (game: FriendsGame, userId: string, other: string, tagIds: unknown) =>
    game.put(`${U(userId)}/friends/${enc(other)}/tags`, { tagIds });

  describe('GET friends: keyset pages on (respondedAt, id)', () => {
    it('items name the friend and the owner; newest friendship first; pages neither repeat nor skip', async () => {
      const a = uid('a');
      const friends: string[] = [];
      for (let i = 0; i < 7; i++) {
        const f = uid(`f${i}`);
        friends.push(f);
        await befriend(g, a, f);
      }
      const first = await g.get(`${U(a)}/friends?limit=3`);
      expect(first.status).toBe(200);
      expect(first.body.items[0]).toEqual({
        id: expect.any(String),
        gameId: g.gameId,
        userId: a,
        friendSvcUserId: expect.any(String),
        createdAt: expect.any(String),
        respondedAt: expect.any(String),
        tagIds: [],
      });
      const seen: { friendSvcUserId: string; respondedAt: string }[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await g.get(`${U(a)}/friends?limit=3${cursor ? `&cursor=${enc(cursor)}` : ''}`);
        seen.push(...r.body.items);
        cursor = r.body.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen.map((x) => x.friendSvcUserId).sort()).toEqual([...friends].sort());
      const times = seen.map((x) => x.respondedAt);
      expect([...times].sort().reverse()).toEqual(times);
    });

    it('rows of the same millisecond page by id, without gaps (keyset on the exact stored value)', async () => {
      const a = uid('a');
      for (let i = 0; i < 5; i++) await befriend(g, a, uid('same'));
      await t.db.query(
        `UPDATE user_relationships SET responded_at = '2026-01-01T00:00:00.123Z' WHERE game_id = $1 AND user_external_id = $2`,
        [g.gameId, a],
      );
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const r = await g.get(`${U(a)}/friends?limit=2${cursor ? `&cursor=${enc(cursor)}` : ''}`);
        ids.push(...r.body.items.map((x: { id: string }) => x.id));
        cursor = r.body.nextCursor;
      } while (cursor);
      expect(ids).toHaveLength(5);
      expect([...ids].sort().reverse()).toEqual(ids);
    });

    it('a page is one statement, read in index order from user_relationships_friends: no sort under the limit', async () => {
      const a = uid('a');
      await befriend(g, a, uid('b'));
      const plan = async (after?: { at: string; id: string }) => {
        // Capture the statement the repository runs (answered as an empty page), then have Postgres explain it.
        const { ds, statements } = captureDataSource([{ packed: null }]);
        await t.app.get(FriendReadsRepository).listPage(ds, {
          callingGameId: g.gameId,
          readGameIds: [g.gameId],
          ownerExternalId: a,
          withTags: true,
          after,
          limit: 50,
        });
        expect(statements).toHaveLength(1);
        return indexPlanText(t.db, statements[0].sql, statements[0].params);
      };
      for (const text of [await plan(), await plan({ at: new Date().toISOString(), id: '0190a5c8-0000-7000-8000-000000000000' })]) {
        expect(text).toMatch(/Index (Only )?Scan using user_relationships_friends/);
        // The index yields the page in order under the Limit; the only sort on respondedAt is the
        // outer one, over the at most limit + 1 rows of the page.
        const limitAt = text.indexOf('->  Limit');
        expect(limitAt).toBeGreaterThan(-1);
        expect(text.slice(limitAt)).not.toMatch(/Sort Key:.*responded_at/);
      }
    });

    it('an unknown user has an empty page; limit and cursor are validated', async () => {
      expect((await g.get(`${U(uid('ghost'))}/friends`)).body).toEqual({ items: [], nextCursor: null });
      const a = uid('a');
      await befriend(g, a, uid('b'));
      await befriend(g, a, uid('c'));
      for (const q of ['limit=0', 'limit=101', 'limit=1.5', 'cursor=garbage']) {
        const r = await g.get(`${U(a)}/friends?${q}`);
        expect(r.status).toBe(400);
      }
      expect((await g.get(`${U(a)}/friends?limit=100`)).status).toBe(200);
      const page = await g.get(`${U(a)}/friends?limit=1`);
      const other = uid('o');
      await touch(g, other);
      expect((await g.get(`${U(other)}/friends?cursor=${enc(page.body.nextCursor)}`)).status).toBe(400);
    });
  });

  describe('rule 2: viewer', () => {
    it('private (the default): only the owner, and an admin read without viewer', async () => {
      const [a, b, s] = [uid('a'), uid('b'), uid('s')];
      await befriend(g, a, b);
      await touch(g, s);
      expect(await friendIds(g, a)).toEqual([b]);
      expect(await friendIds(g, a, `&viewer=${enc(a)}`)).toEqual([b]);
      for (const viewer of [b, s, uid('never-seen')]) {
        const r = await g.get(`${U(a)}/friends?viewer=${enc(viewer)}`);
        expect(r.status).toBe(404);
        expect(r.body.code).toBe('not_found');
      }
    });

    it('friends-only: confirmed friends read it, strangers and pending requesters get 404', async () => {
      const pending = await friendsGame(t);
      const [a, b, p] = [uid('a'), uid('b'), uid('p')];
      const sent = await pending.post(`${U(a)}/friend-requests`, { targetSvcUserId: b });
      await pending.post(`/v1/friend-requests/${sent.body.request.id}/accept`);
      await pending.post(`${U(p)}/friend-requests`, { targetSvcUserId: a });
      expect((await setVisibility(pending, a, 'friends-only')).status).toBe(200);
      expect(await friendIds(pending, a, `&viewer=${enc(b)}`)).toEqual([b]);
      expect((await pending.get(`${U(a)}/friends?viewer=${enc(p)}`)).status).toBe(404);
      expect((await pending.get(`${U(a)}/friends?viewer=${enc(uid('s'))}`)).status).toBe(404);
    });

    it('public: anyone reads it, except across a block in either direction', async () => {
      const pub = await friendsGame(t, { friends: PUBLIC_ALLOWED });
      const [a, b, s, x, y] = [uid('a'), uid('b'), uid('s'), uid('x'), uid('y')];
      await befriend(pub, a, b);
      expect((await setVisibility(pub, a, 'public')).status).toBe(200);
      expect(await friendIds(pub, a, `&viewer=${enc(s)}`)).toEqual([b]);
      expect(await friendIds(pub, a, `&viewer=${enc(uid('never-seen'))}`)).toEqual([b]);
      await block(pub, a, x);
      await block(pub, y, a);
      expect((await pub.get(`${U(a)}/friends?viewer=${enc(x)}`)).status).toBe(404);
      expect((await pub.get(`${U(a)}/friends?viewer=${enc(y)}`)).status).toBe(404);
    });

    it("a stored public visibility no longer allowed by the game reads as the default", async () => {
      const pub = await friendsGame(t, { friends: PUBLIC_ALLOWED });
      const [a, s] = [uid('a'), uid('s')];
      await befriend(pub, a, uid('b'));
      await setVisibility(pub, a, 'public');
      await t.http
        .patch(`/v1/admin/games/${pub.gameId}/config`)
        .set(asAdmin)
        .send({ config: { friends: { visibility: null } } });
      expect((await pub.get(`${U(a)}/visibility`)).body.friendsListVisibility).toBe('private');
      expect((await pub.get(`${U(a)}/friends?viewer=${enc(s)}`)).status).toBe(404);
    });

    it('tags are shown to the owner and an admin, never to another viewer', async () => {
      const pub = await friendsGame(t, { friends: PUBLIC_ALLOWED });
      const [a, b] = [uid('a'), uid('b')];
      await befriend(pub, a, b);
      await setVisibility(pub, a, 'public');
      const tag = await createTag(pub, a, 'raid');
      await putTags(pub, a, b, [tag]);
      expect((await pub.get(`${U(a)}/friends`)).body.items[0].tagIds).toEqual([tag]);
      expect((await pub.get(`${U(a)}/friends?viewer=${enc(a)}`)).body.items[0].tagIds).toEqual([tag]);
      expect((await pub.get(`${U(a)}/friends?viewer=${enc(b)}`)).body.items[0].tagIds).toEqual([]);
    });

    it('an empty viewer is 400', async () => {
      expect((await g.get(`${U(uid('a'))}/friends?viewer=`)).status).toBe(400);
    });
  });

  describe('visibility routes', () => {
    it('GET falls back to the configured default and names the allowed set', async () => {
      const def = await friendsGame(t, { friends: { visibility: { default: 'friends-only' } } });
      const a = uid('a');
      await touch(def, a);
      expect((await def.get(`${U(a)}/visibility`)).body).toEqual({
        userId: a,
        friendsListVisibility: 'friends-only',
        allowed: ['private', 'friends-only'],
      });
      expect((await def.get(`${U(uid('ghost'))}/visibility`)).body.friendsListVisibility).toBe('friends-only');
    });

    it('PATCH stores an allowed value; a value outside the allowed list or unknown is 400', async () => {
      const a = uid('a');
      await touch(g, a);
      const r = await setVisibility(g, a, 'friends-only');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ userId: a, friendsListVisibility: 'friends-only', allowed: ['private', 'friends-only'] });
      const pub = await setVisibility(g, a, 'public');
      expect(pub.status).toBe(400);
      expect(pub.body.message).toMatch(/allowed values: private, friends-only/);
      expect((await setVisibility(g, a, 'everyone')).status).toBe(400);
      expect((await g.patch(`${U(a)}/visibility`, {})).status).toBe(400);
      expect((await g.get(`${U(a)}/visibility`)).body.friendsListVisibility).toBe('friends-only');
    });

    it('PATCH for a user the game has never seen anchors the user and stores the value (DECISIONS §29)', async () => {
      const ghost = uid('ghost');
      const r = await setVisibility(g, ghost, 'friends-only');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ userId: ghost, friendsListVisibility: 'friends-only', allowed: ['private', 'friends-only'] });
      expect((await g.get(`${U(ghost)}/visibility`)).body.friendsListVisibility).toBe('friends-only');
    });
  });

  describe('tags (rule 5)', () => {
    it('CRUD: create 201, list sorted by name, rename, recolour, clear colour, delete 204', async () => {
      const a = uid('a');
      await touch(g, a);
      const create = await g.post(`${U(a)}/friend-tags`, { name: 'raid', color: '#1A2b3c' });
      expect(create.status).toBe(201);
      expect(create.body).toEqual({
        id: expect.any(String),
        gameId: g.gameId,
        userId: a,
        name: 'raid',
        color: '#1A2b3c',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const zed = await createTag(g, a, 'Zed');
      const alpha = await createTag(g, a, 'alpha');
      const list = await g.get(`${U(a)}/friend-tags`);
      // Byte order: upper case sorts before lower case.
      expect(list.body.items.map((x: { id: string }) => x.id)).toEqual([zed, alpha, create.body.id]);
      const renamed = await g.patch(`/v1/friend-tags/${create.body.id}`, { name: 'Aaa' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.name).toBe('Aaa');
      expect((await g.patch(`/v1/friend-tags/${create.body.id}`, { color: '#ffffff' })).body.color).toBe('#ffffff');
      expect((await g.patch(`/v1/friend-tags/${create.body.id}`, { color: null })).body.color).toBeNull();
      expect((await g.del(`/v1/friend-tags/${zed}`)).status).toBe(204);
      expect((await g.del(`/v1/friend-tags/${zed}`)).status).toBe(404);
      expect((await g.get(`${U(a)}/friend-tags`)).body.items.map((x: { id: string }) => x.id)).toEqual([create.body.id, alpha]);
    });

    it('validation: name 1-64, color #rrggbb, PATCH needs a field; unknown users [] on list, anchored on create', async () => {
      const a = uid('a');
      await touch(g, a);
      for (const body of [{ name: '' }, { name: 'x'.repeat(65) }, {}, { name: 'x', color: 'red' }, { name: 'x', color: '#abc' }]) {
        expect((await g.post(`${U(a)}/friend-tags`, body)).status).toBe(400);
      }
      const id = await createTag(g, a, 'x'.repeat(64));
      expect((await g.patch(`/v1/friend-tags/${id}`, {})).status).toBe(400);
      expect((await g.patch(`/v1/friend-tags/${id}`, { name: '' })).status).toBe(400);
      expect((await g.patch(`/v1/friend-tags/not-a-uuid`, { name: 'y' })).status).toBe(404);
      expect((await g.get(`${U(uid('ghost'))}/friend-tags`)).body).toEqual({ items: [] });
      const ghost = uid('ghost');
      const created = await g.post(`${U(ghost)}/friend-tags`, { name: 'x' });
      expect(created.status).toBe(201);
      expect((await g.get(`${U(ghost)}/friend-tags`)).body.items.map((x: { id: string }) => x.id)).toEqual([created.body.id]);
    });

    it('tags.maxPerUser caps creation, checked under the owner lock even when creates race', async () => {
      const capped = await friendsGame(t, { friends: { tags: { maxPerUser: 3 } } });
      const a = uid('a');
      await touch(capped, a);
      const results = await Promise.all([1, 2, 3, 4, 5].map((i) => capped.post(`${U(a)}/friend-tags`, { name: `t${i}` })));
      expect(results.filter((r) => r.status === 201)).toHaveLength(3);
      expect(results.filter((r) => r.status === 400)[0].body.message).toMatch(/tags\.maxPerUser \(3\)/);
    });

    it('PUT replaces the set on the owner-side row; [] clears; the tagId filter lists tagged friends only', async () => {
      const [a, b, c] = [uid('a'), uid('b'), uid('c')];
      await befriend(g, a, b);
      await befriend(g, a, c);
      const [t1, t2] = [await createTag(g, a, 't1'), await createTag(g, a, 't2')];
      const put = await putTags(g, a, b, [t1, t2, t1]);
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ userId: a, friendSvcUserId: b, tagIds: [t1, t2].sort() });
      expect(await friendIds(g, a, `&tagId=${t1}`)).toEqual([b]);
      expect((await putTags(g, a, b, [t2])).body.tagIds).toEqual([t2]);
      expect(await friendIds(g, a, `&tagId=${t1}`)).toEqual([]);
      expect((await putTags(g, a, b, [])).body.tagIds).toEqual([]);
      expect(await friendIds(g, a, `&tagId=${t2}`)).toEqual([]);
      // Tags are the owner's: the other side of the friendship carries none.
      await putTags(g, a, c, [t1]);
      expect((await g.get(`${U(c)}/friends`)).body.items[0].tagIds).toEqual([]);
    });

    it('every tag id must be a tag of :userId in this game (400); the friendship must exist here (404)', async () => {
      const other = await friendsGame(t, AUTO);
      const [a, b, s] = [uid('a'), uid('b'), uid('s')];
      await befriend(g, a, b);
      await touch(g, s);
      const foreignUser = await createTag(g, b, 'bs');
      await touch(other, a);
      const foreignGame = await createTag(other, a, 'elsewhere');
      for (const ids of [[foreignUser], [foreignGame], ['not-a-uuid'], ['0190a5c8-0000-7000-8000-000000000000']]) {
        const r = await putTags(g, a, b, ids);
        expect(r.status).toBe(400);
        expect(r.body.message).toMatch(/is not a tag of userId/);
      }
      expect((await putTags(g, a, b, 'x')).status).toBe(400);
      expect((await g.put(`${U(a)}/friends/${enc(b)}/tags`, {})).status).toBe(400);
      const mine = await createTag(g, a, 'mine');
      expect((await putTags(g, a, s, [mine])).status).toBe(404);
      expect((await g.get(`${U(a)}/friends?tagId=${foreignUser}`)).status).toBe(400);
      expect((await g.get(`${U(a)}/friends?tagId=nope`)).status).toBe(400);
    });

    it('deleting a tag cascades to its attachments; removing a friend drops the attachments', async () => {
      const [a, b] = [uid('a'), uid('b')];
      await befriend(g, a, b);
      const tag = await createTag(g, a, 'gone');
      await putTags(g, a, b, [tag]);
      expect((await t.db.query('SELECT 1 FROM friend_tag_links WHERE tag_id = $1', [tag])).length).toBe(1);
      await g.del(`/v1/friend-tags/${tag}`);
      expect(await t.db.query('SELECT 1 FROM friend_tag_links WHERE tag_id = $1', [tag])).toEqual([]);
      expect((await g.get(`${U(a)}/friends`)).body.items[0].tagIds).toEqual([]);
      const kept = await createTag(g, a, 'kept');
      await putTags(g, a, b, [kept]);
      await g.del(`${U(a)}/friends/${enc(b)}`);
      expect(await t.db.query('SELECT 1 FROM friend_tag_links WHERE tag_id = $1', [kept])).toEqual([]);
      expect((await g.get(`${U(a)}/friend-tags`)).body.items.map((x: { id: string }) => x.id)).toEqual([kept]);
    });

    it('a tag of another game is 404 on PATCH and DELETE', async () => {
      const other = await friendsGame(t);
      const a = uid('a');
      await touch(g, a);
      const tag = await createTag(g, a, 'x');
      expect((await other.patch(`/v1/friend-tags/${tag}`, { name: 'y' })).status).toBe(404);
      expect((await other.del(`/v1/friend-tags/${tag}`)).status).toBe(404);
      expect((await g.get(`${U(a)}/friend-tags`)).body.items).toHaveLength(1);
    });
  });
});
