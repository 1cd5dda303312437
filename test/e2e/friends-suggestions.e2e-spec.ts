import { SuggestionsRepository } from '../../src/friends/suggestions.repository';
import { AUTO, befriend, block, friendsGame, sendPending, svcId, U, uid, type FriendsGame } from '../helpers/friends';
import { captureDataSource } from '../helpers/statement-capture';
import { startTestApp, type TestApp } from '../helpers/test-app';

interface Suggestion {
  svcUserId: string;
  mutualCount: number;
  sampleMutualSvcUserIds: string[];
}

/** SPEC §4 Friends rule 4, §8 (limit 20, cap 50), DECISIONS §23. */
describe('friend suggestions', () => {
  let t: TestApp;
  let g: FriendsGame;
  beforeAll(async () => {
    t = await startTestApp();
    g = await friendsGame(t, AUTO);
  });
  afterAll(() => t.close());

  const suggest = async (game: FriendsGame, userId: string, q = ''): Promise<Suggestion[]> => {
    const r = await game.get(`${U(userId)}/friends/suggestions${q}`);
    if (r.status !== 200) throw new Error(`suggestions: ${r.status} ${r.text}`);
    return r.body.items;
  };

  /** u with friends m1..mN; each candidate c_i friends with the first k_i of them. */
  async function graph(game: FriendsGame, mutualsPerCandidate: number[], extraFriends = 0) {
    const u = uid('u');
    const ms = Array.from({ length: Math.max(...mutualsPerCandidate, extraFriends) }, (_, i) => uid(`m${i}`));
    for (const m of ms) await befriend(game, u, m);
    const cs: string[] = [];
    for (const k of mutualsPerCandidate) {
      const c = uid('c');
      cs.push(c);
      for (const m of ms.slice(0, k)) await befriend(game, c, m);
    }
    return { u, ms, cs };
  }

  it('friends of friends with at least minMutuals (2) mutuals, most mutuals first, external ids, samples up to 5', async () => {
    const { u, ms, cs } = await graph(g, [6, 3, 2, 1]);
    const items = await suggest(g, u);
    expect(items.map((i) => i.svcUserId)).toEqual([cs[0], cs[1], cs[2]]);
    expect(items.map((i) => i.mutualCount)).toEqual([6, 3, 2]);
    expect(items[0].sampleMutualSvcUserIds).toHaveLength(5);
    expect(new Set(items[0].sampleMutualSvcUserIds).size).toBe(5);
    for (const s of items[0].sampleMutualSvcUserIds) expect(ms.slice(0, 6)).toContain(s);
    expect([...items[2].sampleMutualSvcUserIds].sort()).toEqual(ms.slice(0, 2).sort());
  });

  it('excludes the user, existing friends, and anyone blocked in either direction; pending requests do not exclude', async () => {
    const { u, cs } = await graph(g, [3, 3, 3, 3]);
    // cs[0] becomes a friend; u blocks cs[1]; cs[2] blocks u.
    await befriend(g, u, cs[0]);
    await block(g, u, cs[1]);
    await block(g, cs[2], u);
    const items = await suggest(g, u);
    expect(items.map((i) => i.svcUserId)).toEqual([cs[3]]);
    expect(items.map((i) => i.svcUserId)).not.toContain(u);
  });

  it('a pending request does not hide the candidate (the spec excludes friends and blocks only)', async () => {
    const req = await friendsGame(t);
    const u = uid('u');
    const c = uid('c');
    for (const m of [uid('m'), uid('m')]) {
      const id1 = await sendPending(req, u, m);
      await req.post(`/v1/friend-requests/${id1}/accept`);
      const id2 = await sendPending(req, c, m);
      await req.post(`/v1/friend-requests/${id2}/accept`);
    }
    await sendPending(req, u, c);
    expect((await suggest(req, u)).map((i) => i.svcUserId)).toEqual([c]);
  });

  it('friends.discovery.minMutuals applies (1 admits a single mutual)', async () => {
    const one = await friendsGame(t, { friends: { requestsRequired: false, discovery: { minMutuals: 1 } } });
    const { u, cs } = await graph(one, [1]);
    expect(await suggest(one, u)).toEqual([{ svcUserId: cs[0], mutualCount: 1, sampleMutualSvcUserIds: [expect.any(String)] }]);
  });

  it('limit: default 20, accepted up to 50, 0 and 51 are 400', async () => {
    const wide = await friendsGame(t, { friends: { requestsRequired: false, discovery: { minMutuals: 1 } } });
    const u = uid('u');
    const m = uid('m');
    await befriend(wide, u, m);
    for (let i = 0; i < 23; i++) await befriend(wide, m, uid('c'));
    expect(await suggest(wide, u)).toHaveLength(20);
    expect(await suggest(wide, u, '?limit=50')).toHaveLength(23);
    expect(await suggest(wide, u, '?limit=2')).toHaveLength(2);
    for (const q of ['0', '51', 'x']) expect((await wide.get(`${U(u)}/friends/suggestions?limit=${q}`)).status).toBe(400);
  });

  it('an unknown user has none; discovery disabled is 404', async () => {
    expect(await suggest(g, uid('ghost'))).toEqual([]);
    const off = await friendsGame(t, { friends: { discovery: { enabled: false } } });
    const r = await off.get(`${U(uid('u'))}/friends/suggestions`);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });

  it('samples are the five mutual friends with the lowest internal ids, in that order', async () => {
    const { u, ms, cs } = await graph(g, [7]);
    const [item] = await suggest(g, u);
    expect(item.svcUserId).toBe(cs[0]);
    const internal = await Promise.all(ms.map(async (m) => ({ m, id: await svcId(t, g.gameId, m) })));
    const lowest = internal.sort((a, b) => (a.id < b.id ? -1 : 1)).slice(0, 5).map((x) => x.m);
    expect(item.sampleMutualSvcUserIds).toEqual(lowest);
  });

  it('is computed by one SQL statement, reading friends-of-friends from the user_relationships_friends index', async () => {
    const { u } = await graph(g, [2]);
    const { ds, statements } = captureDataSource([]);
    await t.app.get(SuggestionsRepository).compute(ds, {
      callingGameId: g.gameId,
      readGameIds: [g.gameId],
      userId: await svcId(t, g.gameId, u),
      minMutuals: 2,
      limit: 20,
    });
    expect(statements).toHaveLength(1);
    expect(statements[0].name).toBeDefined();
    await t.db.query('SET enable_seqscan = off');
    const plan = await t.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statements[0].sql}`, statements[0].params);
    await t.db.query('RESET enable_seqscan');
    expect(plan.map((p) => p['QUERY PLAN']).join('\n')).toMatch(/((Index Only Scan|Index Scan) using|Bitmap Index Scan on) user_relationships_friends/);
  });
});
