import {
  befriend,
  block,
  eventsOf,
  friendIds,
  friendsGame,
  pairRows,
  send,
  sendPending,
  state,
  touch,
  U,
  uid,
  unblock,
  type FriendsGame,
} from '../helpers/friends';
import { startTestApp, type TestApp } from '../helpers/test-app';

const enc = encodeURIComponent;

/** SPEC §3 Friend relationship (block rows), §4 Friends rule 3 (relationship states and priority). */
describe('blocks and the relationship state', () => {
  let t: TestApp;
  let g: FriendsGame;
  beforeAll(async () => {
    t = await startTestApp();
    g = await friendsGame(t);
  });
  afterAll(() => t.close());

  describe('block state table', () => {
    it('none -> block -> blocked: 201 block record, identities of both created, event friend.blocked', async () => {
      const [a, b] = [uid('a'), uid('b')];
      const r = await block(g, a, b);
      expect(r.status).toBe(201);
      expect(r.body).toEqual({ id: expect.any(String), gameId: g.gameId, userId: a, blockedSvcUserId: b, createdAt: expect.any(String) });
      const ids = await t.db.query('SELECT 1 FROM user_identities WHERE game_id = $1 AND external_id = ANY($2)', [g.gameId, [a, b]]);
      expect(ids).toHaveLength(2);
      const [event] = (await eventsOf(t, g.gameId, 'friend.blocked')).filter((e) => e.bySvcUserId === a);
      expect(event).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        type: 'friend.blocked',
        gameId: g.gameId,
        occurredAt: expect.any(String),
        bySvcUserId: a,
        otherSvcUserId: b,
      });
    });

    it('blocked -> block again: idempotent, 200 with the same record, no second event', async () => {
      const [a, b] = [uid('a'), uid('b')];
      const first = await block(g, a, b);
      const second = await block(g, a, b);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect((await eventsOf(t, g.gameId, 'friend.blocked')).filter((e) => e.bySvcUserId === a)).toHaveLength(1);
      expect((await pairRows(t, g.gameId, a, b)).map((x) => x.type)).toEqual(['blocked']);
    });

    it('friends -> block -> blocked: both friend rows go, no friend.removed event', async () => {
      const [a, b] = [uid('a'), uid('b')];
      await befriend(g, a, b);
      await block(g, b, a);
      expect(await pairRows(t, g.gameId, a, b)).toEqual([expect.objectContaining({ type: 'blocked', user_external_id: b })]);
      expect(await friendIds(g, a)).toEqual([]);
      expect(await friendIds(g, b)).toEqual([]);
      expect((await eventsOf(t, g.gameId, 'friend.removed')).filter((e) => e.otherSvcUserId === a)).toEqual([]);
    });

    it.each([
      ['the blocker sent', true],
      ['the blocked user sent', false],
    ])('pending request (%s) -> block -> blocked: the request goes', async (_case, blockerSent) => {
      const [a, b] = [uid('a'), uid('b')];
      if (blockerSent) await sendPending(g, a, b);
      else await sendPending(g, b, a);
      await block(g, a, b);
      expect((await pairRows(t, g.gameId, a, b)).map((x) => x.type)).toEqual(['blocked']);
      expect((await g.get(`${U(b)}/friend-requests`)).body).toEqual({ inbound: [], outbound: [] });
    });

    it('both may block each other: two rows', async () => {
      const [a, b] = [uid('a'), uid('b')];
      await block(g, a, b);
      expect((await block(g, b, a)).status).toBe(201);
      expect((await pairRows(t, g.gameId, a, b)).map((x) => x.type)).toEqual(['blocked', 'blocked']);
    });

    it('blocked -> unblock -> none: 204, event friend.unblocked; a second unblock is 404', async () => {
      const [a, b] = [uid('a'), uid('b')];
      await block(g, a, b);
      expect((await unblock(g, a, b)).status).toBe(204);
      expect(await pairRows(t, g.gameId, a, b)).toEqual([]);
      const [event] = (await eventsOf(t, g.gameId, 'friend.unblocked')).filter((e) => e.bySvcUserId === a);
      expect(event).toMatchObject({ bySvcUserId: a, otherSvcUserId: b });
      expect((await unblock(g, a, b)).status).toBe(404);
      expect((await unblock(g, uid('ghost'), b)).status).toBe(404);
      await sendPending(g, b, a);
    });

    it("unblock removes only the caller's own block", async () => {
      const [a, b] = [uid('a'), uid('b')];
      await block(g, a, b);
      expect((await unblock(g, b, a)).status).toBe(404);
      expect((await state(g, a, b)).state).toBe('blocked_by_me');
    });

    it('400 for blocking oneself or without a target', async () => {
      const a = uid('a');
      expect((await block(g, a, a)).status).toBe(400);
      const r = await g.post(`${U(a)}/blocks`, {});
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/targetSvcUserId/);
    });

    it('concurrent blocks of each other and a concurrent send leave a consistent pair (x15)', async () => {
      for (let i = 0; i < 15; i++) {
        const [a, b] = [uid('a'), uid('b')];
        await befriend(g, a, uid('x'));
        const [r1, r2, r3] = await Promise.all([block(g, a, b), block(g, b, a), send(g, a, b)]);
        expect([r1.status, r2.status]).toEqual([201, 201]);
        expect([201, 404]).toContain(r3.status);
        expect((await pairRows(t, g.gameId, a, b)).map((x) => x.type)).toEqual(['blocked', 'blocked']);
      }
    });
  });

  describe('GET blocks', () => {
    it('lists outbound blocks newest first, keyset-paginated, default 100', async () => {
      const a = uid('a');
      const blocked: string[] = [];
      for (let i = 0; i < 5; i++) {
        const b = uid(`b${i}`);
        blocked.push(b);
        await block(g, a, b);
      }
      await block(g, uid('other'), a);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor ? `&cursor=${enc(cursor)}` : '';
        const r = await g.get(`${U(a)}/blocks?limit=2${q}`);
        expect(r.status).toBe(200);
        expect(r.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...r.body.items.map((x: { blockedSvcUserId: string }) => x.blockedSvcUserId));
        cursor = r.body.nextCursor;
      } while (cursor);
      // Newest first; rows of one millisecond tie-break on id, so compare as sets plus the order of timestamps.
      expect([...seen].sort()).toEqual([...blocked].sort());
      const all = await g.get(`${U(a)}/blocks`);
      expect(all.body.items).toHaveLength(5);
      const times = all.body.items.map((x: { createdAt: string }) => x.createdAt);
      expect([...times].sort().reverse()).toEqual(times);
      expect(all.body.nextCursor).toBeNull();
    });

    it('an unknown user has an empty page; bad limits and cursors are 400', async () => {
      expect((await g.get(`${U(uid('ghost'))}/blocks`)).body).toEqual({ items: [], nextCursor: null });
      const a = uid('a');
      await block(g, a, uid('b'));
      for (const q of ['limit=0', 'limit=101', 'limit=x', 'cursor=nope']) {
        expect((await g.get(`${U(a)}/blocks?${q}`)).status).toBe(400);
      }
      await block(g, a, uid('c'));
      const page = await g.get(`${U(a)}/blocks?limit=1`);
      // A cursor belongs to its owner's list.
      expect((await g.get(`${U(a)}/blocks?cursor=${enc(page.body.nextCursor)}`)).status).toBe(200);
      expect((await g.get(`${U(uid('z'))}/blocks?cursor=${enc(page.body.nextCursor)}`)).status).toBe(400);
    });
  });

  describe('relationship (rule 3)', () => {
    it('every state with its since', async () => {
      const [a, b, c, d, e] = [uid('a'), uid('b'), uid('c'), uid('d'), uid('e')];
      await touch(g, a);
      await touch(g, e);
      expect(await state(g, a, e)).toEqual({ state: 'none', since: null });

      const sent = await send(g, a, b);
      expect(await state(g, a, b)).toEqual({ state: 'request_outgoing', since: sent.body.request.createdAt });
      expect(await state(g, b, a)).toEqual({ state: 'request_incoming', since: sent.body.request.createdAt });

      const acc = await g.post(`/v1/friend-requests/${sent.body.request.id}/accept`);
      expect(await state(g, a, b)).toEqual({ state: 'friends', since: acc.body.friendship.respondedAt });

      const blk = await block(g, c, d);
      expect(await state(g, c, d)).toEqual({ state: 'blocked_by_me', since: blk.body.createdAt });
      expect(await state(g, d, c)).toEqual({ state: 'blocked_by_them', since: blk.body.createdAt });
    });

    it('priority: own block over their block; their block over everything else', async () => {
      const [a, b] = [uid('a'), uid('b')];
      const ab = await block(g, a, b);
      const ba = await block(g, b, a);
      expect(await state(g, a, b)).toEqual({ state: 'blocked_by_me', since: ab.body.createdAt });
      expect(await state(g, b, a)).toEqual({ state: 'blocked_by_me', since: ba.body.createdAt });
      await unblock(g, b, a);
      expect((await state(g, b, a)).state).toBe('blocked_by_them');
    });

    it('400 when viewer equals other; unknown users read as none (DECISIONS §24)', async () => {
      const a = uid('a');
      const same = await g.get(`${U(a)}/friends/${enc(a)}/relationship`);
      expect(same.status).toBe(400);
      expect(same.body.message).toMatch(/otherUserId must differ/);
      expect(await state(g, uid('ghost'), uid('ghost2'))).toEqual({ state: 'none', since: null });
    });
  });
});
