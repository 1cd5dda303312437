import { expectError } from '../helpers/errors';
import { friendsGame, send, svcId, U, uid, type FriendsGame } from '../helpers/friends';
import { identityOf } from '../helpers/identities';
import { journalAudit, journalEvents } from '../helpers/journal';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * DECISIONS §29: creating a friend tag and setting friends-list visibility anchor a user the game
 * has never seen, as joins and friend requests do, in the write's own transaction.
 */
describe('friends writes anchor a user the game has never seen', () => {
  let t: TestApp;
  let g: FriendsGame;
  beforeAll(async () => {
    t = await startTestApp();
    g = await friendsGame(t);
  });
  afterAll(() => t.close());

  const setVisibility = (game: FriendsGame, userId: string, v: unknown) =>
    game.patch(`${U(userId)}/visibility`, { friendsListVisibility: v });

  const identityCount = async (gameId: string, externalId: string): Promise<number> => {
    const [row] = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM user_identities WHERE game_id = $1 AND external_id = $2',
      [gameId, externalId],
    );
    return row.n;
  };
  // A lost creation race inserts a users row beside the conflicting mapping; it must not survive.
  const orphanUsers = async (): Promise<number> => {
    const [row] = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM users u WHERE NOT EXISTS (SELECT 1 FROM user_identities ui WHERE ui.user_id = u.id)',
    );
    return row.n;
  };
  const trail = async (gameId: string): Promise<{ audit: number; events: number }> => {
    const [row] = await t.db.query<{ audit: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM ${journalAudit()} WHERE game_id = $1) AS audit,
              (SELECT count(*)::int FROM ${journalEvents()} WHERE game_id = $1) AS events`,
      [gameId],
    );
    return row;
  };

  describe('PATCH /v1/users/:userId/visibility', () => {
    it('200 with the stored value, read back afterwards; the identity row exists', async () => {
      const ghost = uid('ghost');
      expect(await identityOf(t, g.gameId, ghost)).toBeNull();
      const r = await setVisibility(g, ghost, 'friends-only');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ userId: ghost, friendsListVisibility: 'friends-only', allowed: ['private', 'friends-only'] });
      const read = await g.get(`${U(ghost)}/visibility`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(r.body);
      expect(await identityCount(g.gameId, ghost)).toBe(1);
    });

    it('writes no audit entry and stages no event, as for a known user', async () => {
      const fresh = await friendsGame(t);
      const before = await trail(fresh.gameId);
      expect((await setVisibility(fresh, uid('ghost'), 'private')).status).toBe(200);
      expect(await trail(fresh.gameId)).toEqual(before);
    });

    it('the anchored user is the one later writes resolve to', async () => {
      const ghost = uid('ghost');
      await setVisibility(g, ghost, 'private');
      const anchored = await svcId(t, g.gameId, ghost);
      expect((await send(g, ghost, uid('friend'))).status).toBe(201);
      expect(await svcId(t, g.gameId, ghost)).toBe(anchored);
      expect(await identityCount(g.gameId, ghost)).toBe(1);
    });

    it('invalid input is still 400 and anchors no one', async () => {
      const ghost = uid('ghost');
      for (const v of ['public', 'everyone', '', 7, null]) expectError(await setVisibility(g, ghost, v), 400, 'bad_request');
      expectError(await g.patch(`${U(ghost)}/visibility`, {}), 400, 'bad_request');
      expect(await identityOf(t, g.gameId, ghost)).toBeNull();
    });

    it('friends.enabled=false is still 404 and anchors no one', async () => {
      const off = await friendsGame(t, { friends: { enabled: false } });
      const ghost = uid('ghost');
      expectError(await setVisibility(off, ghost, 'private'), 404, 'not_found');
      expect(await identityOf(t, off.gameId, ghost)).toBeNull();
    });
  });

  describe('POST /v1/users/:userId/friend-tags', () => {
    it('201 with the tag, which is then listed and owned by the new identity', async () => {
      const ghost = uid('ghost');
      const r = await g.post(`${U(ghost)}/friend-tags`, { name: 'raid', color: '#aabbcc' });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.any(String),
        gameId: g.gameId,
        userId: ghost,
        name: 'raid',
        color: '#aabbcc',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect((await g.get(`${U(ghost)}/friend-tags`)).body.items).toEqual([r.body]);
      const owner = await identityOf(t, g.gameId, ghost);
      expect(owner).not.toBeNull();
      const [tag] = await t.db.query<{ user_id: string }>('SELECT user_id FROM friend_tags WHERE id = $1', [r.body.id]);
      expect(tag.user_id).toBe(owner);
    });

    it('writes no audit entry and stages no event, as for a known user', async () => {
      const fresh = await friendsGame(t);
      const before = await trail(fresh.gameId);
      expect((await fresh.post(`${U(uid('ghost'))}/friend-tags`, { name: 'x' })).status).toBe(201);
      expect(await trail(fresh.gameId)).toEqual(before);
    });

    it('invalid input is still 400 and anchors no one', async () => {
      const ghost = uid('ghost');
      for (const body of [{}, { name: '' }, { name: 'x'.repeat(65) }, { name: 'x', color: 'red' }, { name: 'x', color: '#abc' }]) {
        expectError(await g.post(`${U(ghost)}/friend-tags`, body), 400, 'bad_request');
      }
      expect(await identityOf(t, g.gameId, ghost)).toBeNull();
    });

    it('friends.tags.enabled=false is still 404 and anchors no one', async () => {
      const off = await friendsGame(t, { friends: { tags: { enabled: false } } });
      const ghost = uid('ghost');
      expectError(await off.post(`${U(ghost)}/friend-tags`, { name: 'x' }), 404, 'not_found');
      expect(await identityOf(t, off.gameId, ghost)).toBeNull();
    });
  });

  describe('concurrent first writes about one new user', () => {
    it('20 parallel PATCH visibility all answer 200 and leave exactly one identity', async () => {
      const ghost = uid('ghost');
      const values = Array.from({ length: 20 }, (_, i) => (i % 2 ? 'private' : 'friends-only'));
      const results = await Promise.all(values.map((v) => setVisibility(g, ghost, v)));
      expect(results.map((r) => r.status)).toEqual(values.map(() => 200));
      expect(await identityCount(g.gameId, ghost)).toBe(1);
      expect(values).toContain((await g.get(`${U(ghost)}/visibility`)).body.friendsListVisibility);
      expect(await orphanUsers()).toBe(0);
    });

    it('20 parallel POST friend-tags (at the default cap of 20) all answer 201 and share one identity', async () => {
      const ghost = uid('ghost');
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => g.post(`${U(ghost)}/friend-tags`, { name: `t${i}` })));
      expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
      expect(await identityCount(g.gameId, ghost)).toBe(1);
      expect((await g.get(`${U(ghost)}/friend-tags`)).body.items).toHaveLength(20);
      const owners = await t.db.query<{ user_id: string }>('SELECT DISTINCT user_id FROM friend_tags WHERE id = ANY($1::uuid[])', [
        results.map((r) => r.body.id),
      ]);
      expect(owners).toEqual([{ user_id: await identityOf(t, g.gameId, ghost) }]);
      expect(await orphanUsers()).toBe(0);
    });

    it('PATCH and POST mixed, 10 each, all succeed with exactly one identity', async () => {
      const ghost = uid('ghost');
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 ? setVisibility(g, ghost, 'friends-only') : g.post(`${U(ghost)}/friend-tags`, { name: `m${i}` }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(results.map((_, i) => (i % 2 ? 200 : 201)));
      expect(await identityCount(g.gameId, ghost)).toBe(1);
      expect((await g.get(`${U(ghost)}/friend-tags`)).body.items).toHaveLength(10);
      expect((await g.get(`${U(ghost)}/visibility`)).body.friendsListVisibility).toBe('friends-only');
      expect(await orphanUsers()).toBe(0);
    });
  });
});
