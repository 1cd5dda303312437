import { befriend, block, friendsGame, patchGameConfig, send, sendPending, U, uid, type FriendsGame } from '../helpers/friends';
import { startTestApp, type TestApp } from '../helpers/test-app';

const enc = encodeURIComponent;

/** SPEC §2 Game config switches: friends.enabled (every friends route 404), blocks.enabled, tags.enabled. */
describe('friends switches', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const setConfig = (game: FriendsGame, config: unknown) => patchGameConfig(t, game.gameId, { config });

  describe('friends.enabled=false', () => {
    let g: FriendsGame;
    let x: { a: string; b: string; requestId: string; tagId: string };
    beforeAll(async () => {
      g = await friendsGame(t);
      const [a, b] = [uid('a'), uid('b')];
      await befriend(g, a, b);
      const requestId = await sendPending(g, a, uid('c'));
      const tagId = (await g.post(`${U(a)}/friend-tags`, { name: 'tag' })).body.id;
      x = { a, b, requestId, tagId };
      await setConfig(g, { friends: { enabled: false } });
    });

    const routes: [string, () => Promise<{ status: number; body: { code: string } }>][] = [
      ['POST friend-requests', () => g.post(`${U(x.b)}/friend-requests`, { targetSvcUserId: uid('n') })],
      ['GET friend-requests', () => g.get(`${U(x.a)}/friend-requests`)],
      ['accept', () => g.post(`/v1/friend-requests/${x.requestId}/accept`)],
      ['decline', () => g.post(`/v1/friend-requests/${x.requestId}/decline`)],
      ['cancel', () => g.del(`/v1/friend-requests/${x.requestId}`)],
      ['GET friends', () => g.get(`${U(x.a)}/friends`)],
      ['DELETE friend', () => g.del(`${U(x.a)}/friends/${enc(x.b)}`)],
      ['relationship', () => g.get(`${U(x.a)}/friends/${enc(x.b)}/relationship`)],
      ['POST blocks', () => g.post(`${U(x.a)}/blocks`, { targetSvcUserId: uid('n') })],
      ['DELETE blocks', () => g.del(`${U(x.a)}/blocks/${enc(x.b)}`)],
      ['GET blocks', () => g.get(`${U(x.a)}/blocks`)],
      ['GET friend-tags', () => g.get(`${U(x.a)}/friend-tags`)],
      ['POST friend-tags', () => g.post(`${U(x.a)}/friend-tags`, { name: 'n' })],
      ['PATCH friend-tags', () => g.patch(`/v1/friend-tags/${x.tagId}`, { name: 'n' })],
      ['DELETE friend-tags', () => g.del(`/v1/friend-tags/${x.tagId}`)],
      ['PUT tags', () => g.put(`${U(x.a)}/friends/${enc(x.b)}/tags`, { tagIds: [x.tagId] })],
      ['suggestions', () => g.get(`${U(x.a)}/friends/suggestions`)],
      ['GET visibility', () => g.get(`${U(x.a)}/visibility`)],
      ['PATCH visibility', () => g.patch(`${U(x.a)}/visibility`, { friendsListVisibility: 'friends-only' })],
    ];
    it.each(routes)('%s answers 404 not_found', async (_name, call) => {
      const r = await call();
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
    });

    it('nothing was changed meanwhile, and turning friends back on restores everything', async () => {
      await setConfig(g, { friends: { enabled: null } });
      expect((await g.get(`${U(x.a)}/friends/${enc(x.b)}/relationship`)).body.state).toBe('friends');
      expect((await g.get(`${U(x.a)}/friend-requests`)).body.outbound.map((r: { id: string }) => r.id)).toEqual([x.requestId]);
      expect((await g.get(`${U(x.a)}/friend-tags`)).body.items).toHaveLength(1);
    });
  });

  it('blocks.enabled=false: the block routes are 404; blocks already in place still keep the parties apart', async () => {
    const g = await friendsGame(t);
    const [a, b] = [uid('a'), uid('b')];
    await block(g, a, b);
    await setConfig(g, { blocks: { enabled: false } });
    expect((await block(g, a, uid('c'))).status).toBe(404);
    expect((await g.del(`${U(a)}/blocks/${enc(b)}`)).status).toBe(404);
    expect((await g.get(`${U(a)}/blocks`)).status).toBe(404);
    expect((await send(g, b, a)).status).toBe(404);
    expect((await g.get(`${U(a)}/friends/${enc(b)}/relationship`)).body.state).toBe('blocked_by_me');
  });

  it('friends.tags.enabled=false: the tag routes and the tagId filter are 404; the rest works', async () => {
    const g = await friendsGame(t, { friends: { requestsRequired: false } });
    const [a, b] = [uid('a'), uid('b')];
    await befriend(g, a, b);
    const tagId = (await g.post(`${U(a)}/friend-tags`, { name: 't' })).body.id;
    await setConfig(g, { friends: { tags: { enabled: false } } });
    expect((await g.get(`${U(a)}/friend-tags`)).status).toBe(404);
    expect((await g.post(`${U(a)}/friend-tags`, { name: 'u' })).status).toBe(404);
    expect((await g.patch(`/v1/friend-tags/${tagId}`, { name: 'v' })).status).toBe(404);
    expect((await g.del(`/v1/friend-tags/${tagId}`)).status).toBe(404);
    expect((await g.put(`${U(a)}/friends/${enc(b)}/tags`, { tagIds: [] })).status).toBe(404);
    expect((await g.get(`${U(a)}/friends?tagId=${tagId}`)).status).toBe(404);
    expect((await g.get(`${U(a)}/friends`)).status).toBe(200);
  });
});
