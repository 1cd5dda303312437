import { befriend, block, friendIds, friendsGame, patchGameConfig, send, state, svcId, U, uid, type FriendsGame } from '../helpers/friends';
import { asAdmin, startTestApp, type TestApp } from '../helpers/test-app';

const enc = encodeURIComponent;
const NETWORK = { friends: { requestsRequired: false, scope: 'network', discovery: { minMutuals: 1 } } };

/**
 * SPEC §2 scope rule, §1.3: `network` scope shares friendships across the games of one networkId that
 * both opted in, through internal users linked by the admin route of DECISIONS §6; writes stay pinned.
 */
describe('friends network scope, end to end through the link route', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const setConfig = (game: FriendsGame, config: unknown) => patchGameConfig(t, game.gameId, { config });
  const link = async (game: FriendsGame, ext: string, svcUserId: string) => {
    const r = await t.http.put(`/v1/admin/games/${game.gameId}/users/${enc(ext)}`).set(asAdmin).send({ svcUserId });
    if (r.status !== 200) throw new Error(`link: ${r.status} ${r.text}`);
  };

  it('a friendship made in game A is visible from game B for the linked users, and not once either game goes back to per-game', async () => {
    const net = uid('net');
    const A = await friendsGame(t, NETWORK, net);
    const B = await friendsGame(t, NETWORK, net);
    const [alice, bob] = [uid('alice'), uid('bob')];
    await befriend(A, alice, bob);
    const since = (await state(A, alice, bob)).since;
    await link(B, 'alice-in-b', await svcId(t, A.gameId, alice));
    await link(B, 'bob-in-b', await svcId(t, A.gameId, bob));

    // Read from B: the list names the friend by B's external id, the state is friends since A's respondedAt.
    const list = await B.get(`${U('alice-in-b')}/friends`);
    expect(list.body.items).toEqual([
      expect.objectContaining({ gameId: A.gameId, userId: 'alice-in-b', friendSvcUserId: 'bob-in-b', respondedAt: since, tagIds: [] }),
    ]);
    expect(await state(B, 'alice-in-b', 'bob-in-b')).toEqual({ state: 'friends', since });
    expect(await state(B, 'bob-in-b', 'alice-in-b')).toEqual({ state: 'friends', since });

    // Either game back to per-game narrows the reads; nothing is deleted.
    await setConfig(B, { friends: { scope: 'per-game' } });
    expect(await friendIds(B, 'alice-in-b')).toEqual([]);
    expect((await state(B, 'alice-in-b', 'bob-in-b')).state).toBe('none');
    await setConfig(B, { friends: { scope: 'network' } });
    expect(await friendIds(B, 'alice-in-b')).toEqual(['bob-in-b']);
    await setConfig(A, { friends: { scope: 'per-game' } });
    expect(await friendIds(B, 'alice-in-b')).toEqual([]);
    expect((await state(B, 'alice-in-b', 'bob-in-b')).state).toBe('none');
    expect(await friendIds(A, alice)).toEqual([bob]);
    await setConfig(A, { friends: { scope: 'network' } });
    expect(await friendIds(B, 'alice-in-b')).toEqual(['bob-in-b']);

    // Leaving the network (networkId null) narrows it too.
    await t.http.patch(`/v1/admin/games/${A.gameId}/config`).set(asAdmin).send({ networkId: null });
    expect(await friendIds(B, 'alice-in-b')).toEqual([]);
  });

  it('priority across the scope: a network friendship outranks a pending request of the calling game', async () => {
    const net = uid('net');
    const A = await friendsGame(t, NETWORK, net);
    const B = await friendsGame(t, undefined, net);
    const [alice, bob] = [uid('alice'), uid('bob')];
    await befriend(A, alice, bob);
    await link(B, 'alice-b', await svcId(t, A.gameId, alice));
    await link(B, 'bob-b', await svcId(t, A.gameId, bob));
    // B is still per-game: the request is legitimate there.
    const sent = await send(B, 'alice-b', 'bob-b');
    expect(sent.status).toBe(201);
    expect((await state(B, 'alice-b', 'bob-b')).state).toBe('request_outgoing');
    await setConfig(B, { friends: { scope: 'network' } });
    expect(await state(B, 'alice-b', 'bob-b')).toEqual({ state: 'friends', since: (await state(A, alice, bob)).since });
    expect((await state(B, 'bob-b', 'alice-b')).state).toBe('friends');
    await setConfig(B, { friends: { scope: null } });
    expect((await state(B, 'bob-b', 'alice-b')).state).toBe('request_incoming');
  });

  describe('in a network of two opted-in games', () => {
    let A: FriendsGame;
    let B: FriendsGame;
    let net: string;
    const alice = uid('alice');
    const bob = uid('bob');
    const carol = uid('carol');
    beforeAll(async () => {
      net = uid('net');
      A = await friendsGame(t, NETWORK, net);
      B = await friendsGame(t, NETWORK, net);
      await befriend(A, alice, bob);
      await befriend(A, alice, carol);
      await link(B, 'alice-b', await svcId(t, A.gameId, alice));
      await link(B, 'bob-b', await svcId(t, A.gameId, bob));
    });

    it('a friend with no identity in the calling game is named by the id of the game the friendship was made in', async () => {
      expect((await friendIds(B, 'alice-b')).sort()).toEqual(['bob-b', carol].sort());
    });

    it('writes stay pinned: a send is refused as already friends; removing or tagging an A friendship from B is 404', async () => {
      const r = await send(B, 'alice-b', 'bob-b');
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/already a friend/);
      expect((await B.del(`${U('alice-b')}/friends/bob-b`)).status).toBe(404);
      const tag = await B.post(`${U('alice-b')}/friend-tags`, { name: 'guild' });
      expect((await B.put(`${U('alice-b')}/friends/bob-b/tags`, { tagIds: [tag.body.id] })).status).toBe(404);
      expect((await state(A, alice, bob)).state).toBe('friends');
    });

    it("friends-only visibility admits a network friend as viewer", async () => {
      expect((await B.patch(`${U('alice-b')}/visibility`, { friendsListVisibility: 'friends-only' })).status).toBe(200);
      expect((await B.get(`${U('alice-b')}/friends?viewer=bob-b`)).status).toBe(200);
      expect((await B.get(`${U('alice-b')}/friends?viewer=${uid('stranger')}`)).status).toBe(404);
    });

    it('suggestions walk the network graph and name users in the calling game', async () => {
      const erin = uid('erin');
      await befriend(B, 'bob-b', erin);
      const r = await B.get(`${U('alice-b')}/friends/suggestions`);
      expect(r.body.items).toEqual([{ svcUserId: erin, mutualCount: 1, sampleMutualSvcUserIds: ['bob-b'] }]);
    });

    it('a kept network list names each user as the calling game names them at the time of the read', async () => {
      const carolIn = async () => ((await B.get(`${U('bob-b')}/friends/suggestions`)).body.items as { svcUserId: string; sampleMutualSvcUserIds: string[] }[]).find((s) => s.sampleMutualSvcUserIds.includes('alice-b'));
      expect((await carolIn())?.svcUserId).toBe(carol);
      expect((await carolIn())?.svcUserId).toBe(carol);
      const kept = await t.db.query('SELECT 1 FROM friend_suggestions WHERE game_id = $1', [B.gameId]);
      expect(kept.length).toBeGreaterThan(0);
      // Linking makes no friendship change, so the kept list stands; its names are read again.
      await link(B, 'carol-b', await svcId(t, A.gameId, carol));
      expect((await carolIn())?.svcUserId).toBe('carol-b');
    });

    it('tagId keeps to the calling game; a friendship met in two games is listed once, with the earliest', async () => {
      const C = await friendsGame(t, { friends: { requestsRequired: false } }, net);
      const dave = uid('dave');
      await befriend(A, alice, dave);
      const since = (await state(A, alice, dave)).since;
      await link(C, 'alice-c', await svcId(t, A.gameId, alice));
      await link(C, 'dave-c', await svcId(t, A.gameId, dave));
      // In C (still per-game) they befriend again; then C joins the network.
      await befriend(C, 'alice-c', 'dave-c');
      const frank = uid('frank');
      await befriend(C, 'alice-c', frank);
      const tag = (await C.post(`${U('alice-c')}/friend-tags`, { name: 'c-only' })).body.id;
      await C.put(`${U('alice-c')}/friends/${frank}/tags`, { tagIds: [tag] });
      await setConfig(C, { friends: { scope: 'network' } });
      const items = (await C.get(`${U('alice-c')}/friends`)).body.items as { friendSvcUserId: string; respondedAt: string; gameId: string }[];
      const daves = items.filter((i) => i.friendSvcUserId === 'dave-c');
      expect(daves).toEqual([expect.objectContaining({ gameId: A.gameId, respondedAt: since })]);
      expect(items.map((i) => i.friendSvcUserId).sort()).toEqual(['dave-c', frank, bob, carol].sort());
      expect(await friendIds(C, 'alice-c', `&tagId=${tag}`)).toEqual([frank]);
      // Pages of the deduplicated list still walk every friend once.
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await C.get(`${U('alice-c')}/friends?limit=1${cursor ? `&cursor=${enc(cursor)}` : ''}`);
        seen.push(...page.body.items.map((i: { friendSvcUserId: string }) => i.friendSvcUserId));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(seen.sort()).toEqual(['dave-c', frank, bob, carol].sort());
    });

    it("a block in the calling game outranks a network friendship and hides it from that game's list only", async () => {
      const D = await friendsGame(t, NETWORK, net);
      await link(D, 'alice-d', await svcId(t, A.gameId, alice));
      await link(D, 'carol-d', await svcId(t, A.gameId, carol));
      expect(await friendIds(D, 'alice-d')).toContain('carol-d');
      const blk = await block(D, 'alice-d', 'carol-d');
      expect(await state(D, 'alice-d', 'carol-d')).toEqual({ state: 'blocked_by_me', since: blk.body.createdAt });
      expect(await state(D, 'carol-d', 'alice-d')).toEqual({ state: 'blocked_by_them', since: blk.body.createdAt });
      expect(await friendIds(D, 'alice-d')).not.toContain('carol-d');
      expect(await friendIds(A, alice)).toContain(carol);
    });

    it('a game of the same networkId that did not opt in, or of another network, shares nothing', async () => {
      const perGame = await friendsGame(t, { friends: { requestsRequired: false } }, net);
      const elsewhere = await friendsGame(t, NETWORK, uid('other-net'));
      for (const game of [perGame, elsewhere]) {
        await link(game, 'alice-x', await svcId(t, A.gameId, alice));
        await link(game, 'bob-x', await svcId(t, A.gameId, bob));
        expect(await friendIds(game, 'alice-x')).toEqual([]);
        expect((await state(game, 'alice-x', 'bob-x')).state).toBe('none');
        expect((await send(game, 'alice-x', 'bob-x')).status).toBe(201);
      }
    });
  });
});
