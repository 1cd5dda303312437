import { GAME_CONFIG_CHANNEL } from '../../src/game-config/friends-context-cache';
import { befriend, friendIds, friendsClient, friendsGame, patchGameConfig, svcId, U, uid, type FriendsGame } from '../helpers/friends';
import { asAdmin, startTestApp, type TestApp } from '../helpers/test-app';

const enc = encodeURIComponent;
const NETWORK = { friends: { requestsRequired: false, scope: 'network' } };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The friends context (resolved config and read games) is cached per process; a config change
 * clears it on the committing instance at commit and on every other instance through NOTIFY.
 * Two app instances on one database, each with its own cache and listener.
 */
describe('friends config cache across instances', () => {
  let one: TestApp;
  let two: TestApp;
  beforeAll(async () => {
    one = await startTestApp();
    two = await startTestApp({}, one.db);
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  /** The same game, driven through the other instance. */
  const via = (t: TestApp, g: FriendsGame): FriendsGame => friendsClient(t, g.gameId, g.key);
  const patchConfig = patchGameConfig;
  /** Polls until `check` holds; the time it took. */
  const within = async (ms: number, check: () => Promise<boolean>): Promise<number> => {
    const t0 = Date.now();
    while (!(await check())) {
      if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
      await sleep(5);
    }
    return Date.now() - t0;
  };

  it('a PATCH is seen by the very next friends call on the same instance, and on the other within milliseconds', async () => {
    const g1 = await friendsGame(one, { friends: { requestsRequired: false } });
    const g2 = via(two, g1);
    const [a, b] = [uid('a'), uid('b')];
    await befriend(g1, a, b);
    // Both instances hold the context now.
    expect((await g1.get(`${U(a)}/friends`)).status).toBe(200);
    expect((await g2.get(`${U(a)}/friends`)).status).toBe(200);

    await patchConfig(one, g1.gameId, { config: { friends: { enabled: false } } });
    expect((await g1.get(`${U(a)}/friends`)).status).toBe(404);
    const elapsed = await within(2_000, async () => (await g2.get(`${U(a)}/friends`)).status === 404);
    expect(elapsed).toBeLessThan(1_000);

    await patchConfig(two, g1.gameId, { config: { friends: { enabled: true } } });
    expect((await g2.get(`${U(a)}/friends`)).status).toBe(200);
    await within(2_000, async () => (await g1.get(`${U(a)}/friends`)).status === 200);

    // A setting read by a write (requestsRequired) follows as well.
    await patchConfig(one, g1.gameId, { config: { friends: { requestsRequired: true } } });
    await within(2_000, async () => {
      const r = await g2.post(`${U(uid('x'))}/friend-requests`, { targetSvcUserId: uid('y') });
      return r.status === 201 && r.body.status === 'pending';
    });
  });

  it("another game's networkId change widens and narrows the read scope on both instances", async () => {
    const net = uid('net');
    const A1 = await friendsGame(one, NETWORK, net);
    const B1 = await friendsGame(one, NETWORK);
    const [A2, B2] = [via(two, A1), via(two, B1)];
    const [alice, bob] = [uid('alice'), uid('bob')];
    await befriend(B1, alice, bob);
    for (const [ext, internal] of [
      ['alice-in-a', await svcId(one, B1.gameId, alice)],
      ['bob-in-a', await svcId(one, B1.gameId, bob)],
    ]) {
      const r = await one.http.put(`/v1/admin/games/${A1.gameId}/users/${enc(ext)}`).set(asAdmin).send({ svcUserId: internal });
      expect(r.status).toBe(200);
    }
    expect(await friendIds(A1, 'alice-in-a')).toEqual([]);
    expect(await friendIds(A2, 'alice-in-a')).toEqual([]);

    // B joins A's network: A's reads now span B, though A's own config did not change.
    await patchConfig(two, B1.gameId, { networkId: net });
    expect(await friendIds(A2, 'alice-in-a')).toEqual(['bob-in-a']);
    await within(2_000, async () => (await friendIds(A1, 'alice-in-a')).length === 1);
    expect((await A1.get(`${U('alice-in-a')}/friends/${enc('bob-in-a')}/relationship`)).body.state).toBe('friends');

    // And leaves it again.
    await patchConfig(one, B1.gameId, { networkId: null });
    expect(await friendIds(A1, 'alice-in-a')).toEqual([]);
    await within(2_000, async () => (await friendIds(A2, 'alice-in-a')).length === 0);
    expect((await A2.get(`${U('alice-in-a')}/friends/${enc('bob-in-a')}/relationship`)).body.state).toBe('none');
    expect(await friendIds(B2, alice)).toEqual([bob]);
  });

  it('reads come from the cache until a notification on the channel clears it', async () => {
    const g = await friendsGame(one);
    const a = uid('a');
    expect((await g.get(`${U(a)}/friends`)).status).toBe(200);
    // A change that bypasses the service (no NOTIFY) is not seen: the context is cached...
    await one.db.query(`UPDATE games SET config = jsonb_set(config, '{friends}', '{"enabled": false}') WHERE id = $1`, [g.gameId]);
    expect((await g.get(`${U(a)}/friends`)).status).toBe(200);
    // ...until the channel says something changed.
    await one.db.query(`SELECT pg_notify($1, '')`, [GAME_CONFIG_CHANNEL]);
    await within(2_000, async () => (await g.get(`${U(a)}/friends`)).status === 404);
  });
});
