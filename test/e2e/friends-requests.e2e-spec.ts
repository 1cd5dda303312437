import {
  accept,
  AUTO,
  befriend,
  block,
  cancel,
  decline,
  eventsOf,
  friendIds,
  friendsGame,
  pairRows,
  send,
  sendPending,
  state,
  U,
  uid,
  type FriendsGame,
} from '../helpers/friends';
import { journalAudit } from '../helpers/journal';
import { ISO_MS } from '../helpers/shapes';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** SPEC §3 Friend relationship (requests and friendships), §4 Friends rule 1, §6 friend events, §8 caps. */
describe('friend requests and friendships', () => {
  let t: TestApp;
  let g: FriendsGame;
  let auto: FriendsGame;
  beforeAll(async () => {
    t = await startTestApp();
    g = await friendsGame(t);
    auto = await friendsGame(t, AUTO);
  });
  afterAll(() => t.close());

  describe('state table', () => {
    it('none -> send (requestsRequired) -> pending: 201 { status: pending, request }, event friend.request.sent', async () => {
      const [a, b] = [uid('a'), uid('b')];
      const r = await send(g, a, b);
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        status: 'pending',
        request: { id: expect.any(String), gameId: g.gameId, senderSvcUserId: a, targetSvcUserId: b, createdAt: expect.stringMatching(ISO_MS) },
      });
      expect(await pairRows(t, g.gameId, a, b)).toEqual([expect.objectContaining({ id: r.body.request.id, type: 'request', user_external_id: a })]);
      const [event] = (await eventsOf(t, g.gameId, 'friend.request.sent')).filter((e) => e.actorSvcUserId === a);
      expect(event).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        type: 'friend.request.sent',
        gameId: g.gameId,
        occurredAt: expect.any(String),
        actorSvcUserId: a,
        targetSvcUserId: b,
      });
      expect(await state(g, a, b)).toEqual({ state: 'request_outgoing', since: r.body.request.createdAt });
      expect(await state(g, b, a)).toEqual({ state: 'request_incoming', since: r.body.request.createdAt });
    });

    it('send creates both identities (SPEC §1.4)', async () => {
      const [a, b] = [uid('a'), uid('b')];
      await sendPending(g, a, b);
      const rows = await t.db.query('SELECT external_id FROM user_identities WHERE game_id = $1 AND external_id = ANY($2)', [g.gameId, [a, b]]);
      expect(rows).toHaveLength(2);
    });

    it('none -> send (requestsRequired false) -> friends: { status: auto-accepted, friendship }, event friend.request.accepted', async () => {
      const [a, b] = [uid('a'), uid('b')];
      const r = await send(auto, a, b);
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        status: 'auto-accepted',
        friendship: {
          id: expect.any(String),
          gameId: auto.gameId,
          userId: a,
          friendSvcUserId: b,
          createdAt: expect.stringMatching(ISO_MS),
          respondedAt: expect.stringMatching(ISO_MS),
          tagIds: [],
        },
      });
      const rows = await pairRows(t, auto.gameId, a, b);
      expect(rows.map((x) => x.type)).toEqual(['friend', 'friend']);
      const [event] = (await eventsOf(t, auto.gameId, 'friend.request.accepted')).filter((e) => e.actorSvcUserId === a);
      expect(event).toMatchObject({ actorSvcUserId: a, targetSvcUserId: b, respondedAt: r.body.friendship.respondedAt });
      expect(event.groupId).toBeUndefined();
      expect(await eventsOf(t, auto.gameId, 'friend.request.sent')).toEqual([]);
      const requests = await auto.get(`${U(a)}/friend-requests`);
      expect(requests.body).toEqual({ inbound: [], outbound: [] });
    });

    it('pending -> accept -> friends: the request row is updated in place (id and createdAt kept) and a mirror row is added', async () => {
      const [a, b] = [uid('a'), uid('b')];
      const sent = await send(g, a, b);
      const id = sent.body.request.id;
      const r = await accept(g, id);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        status: 'accepted',
        friendship: {
          id,
          gameId: g.gameId,
          userId: a,
          friendSvcUserId: b,
          createdAt: sent.body.request.createdAt,
          respondedAt: expect.stringMatching(ISO_MS),
          tagIds: [],
        },
      });
      const rows = await t.db.query<{ id: string; user_external_id: string; created_at: Date; responded_at: Date }>(
        `SELECT id, user_external_id, created_at, responded_at FROM user_relationships WHERE game_id = $1 AND type = 'friend'
         AND user_external_id = ANY($2) ORDER BY user_external_id`,
        [g.gameId, [a, b]],
      );
      expect(rows).toHaveLength(2);
      const [mine, mirror] = rows[0].user_external_id === a ? rows : [rows[1], rows[0]];
      expect(mine.id).toBe(id);
      expect(mine.created_at.toISOString()).toBe(sent.body.request.createdAt);
      expect(mirror.id).not.toBe(id);
      expect(mirror.responded_at.toISOString()).toBe(mine.responded_at.toISOString());
      const [event] = (await eventsOf(t, g.gameId, 'friend.request.accepted')).filter((e) => e.actorSvcUserId === a);
      expect(event).toMatchObject({ type: 'friend.request.accepted', actorSvcUserId: a, targetSvcUserId: b, respondedAt: r.body.friendship.respondedAt });
      expect(await state(g, a, b)).toEqual({ state: 'friends', since: r.body.friendship.respondedAt });
      expect(await state(g, b, a)).toEqual({ state: 'friends', since: r.body.friendship.respondedAt });
      expect(await friendIds(g, a)).toEqual([b]);
      expect(await friendIds(g, b)).toEqual([a]);
    });

    it('pending -> decline -> none: 204, row deleted, event friend.request.declined (actor = sender, target = recipient)', async () => {
      const [a, b] = [uid('a'), uid('b')];
      const id = await sendPending(g, a, b);
      expect((await decline(g, id)).status).toBe(204);
      expect(await pairRows(t, g.gameId, a, b)).toEqual([]);
      expect(await state(g, a, b)).toEqual({ state: 'none', since: null });
      const [event] = (await eventsOf(t, g.gameId, 'friend.request.declined')).filter((e) => e.actorSvcUserId === a);
      expect(event).toMatchObject({ actorSvcUserId: a, targetSvcUserId: b });
    });

    it('pending -> sender DELETE -> none: 204, row deleted, event friend.request.cancelled', async () => {
      const [a, b] = [uid('a'), uid('b')];
      const id = await sendPending(g, a, b);
      expect((await cancel(g, id)).status).toBe(204);
      expect(await pairRows(t, g.gameId, a, b)).toEqual([]);
      const [event] = (await eventsOf(t, g.gameId, 'friend.request.cancelled')).filter((e) => e.actorSvcUserId === a);
      expect(event).toMatchObject({ actorSvcUserId: a, targetSvcUserId: b });
    });

    it('friends -> DELETE friend -> none: 204, both rows gone, event friend.removed', async () => {
      const [a, b] = [uid('a'), uid('b')];
      await befriend(g, a, b);
      const r = await g.del(`${U(b)}/friends/${encodeURIComponent(a)}`);
      expect(r.status).toBe(204);
      expect(await pairRows(t, g.gameId, a, b)).toEqual([]);
      expect(await friendIds(g, a)).toEqual([]);
      const [event] = (await eventsOf(t, g.gameId, 'friend.removed')).filter((e) => e.removedBySvcUserId === b);
      expect(event).toMatchObject({ removedBySvcUserId: b, otherSvcUserId: a });
      expect((await g.del(`${U(b)}/friends/${encodeURIComponent(a)}`)).status).toBe(404);
    });

    it('a request can be sent again after decline, cancel or removal', async () => {
      const [a, b] = [uid('a'), uid('b')];
      await decline(g, await sendPending(g, a, b));
      await cancel(g, await sendPending(g, b, a));
      await befriend(g, a, b);
      await g.del(`${U(a)}/friends/${encodeURIComponent(b)}`);
      await sendPending(g, a, b);
    });
  });

  describe('rule 1: refused sends', () => {
    it('400 when already friends (either side sends)', async () => {
      const [a, b] = [uid('a'), uid('b')];
      await befriend(g, a, b);
      for (const [x, y] of [[a, b], [b, a]]) {
        const r = await send(g, x, y);
        expect(r.status).toBe(400);
        expect(r.body.message).toMatch(/already a friend/);
      }
    });

    it('400 when a request is pending in either direction', async () => {
      const [a, b] = [uid('a'), uid('b')];
      await sendPending(g, a, b);
      for (const [x, y] of [[a, b], [b, a]]) {
        const r = await send(g, x, y);
        expect(r.status).toBe(400);
        expect(r.body.message).toMatch(/already pending/);
      }
    });

    it('404 (silent) when either party has blocked the other', async () => {
      const [a, b, c] = [uid('a'), uid('b'), uid('c')];
      await block(g, a, b);
      expect((await send(g, a, b)).body.code).toBe('not_found');
      expect((await send(g, b, a)).body.code).toBe('not_found');
      await block(g, c, a);
      expect((await send(g, c, a)).status).toBe(404);
    });

    it('400 for a request to oneself, for a missing or empty target', async () => {
      const a = uid('a');
      expect((await send(g, a, a)).body.message).toMatch(/targetSvcUserId must differ/);
      const missing = await g.post(`${U(a)}/friend-requests`, {});
      expect(missing.status).toBe(400);
      expect(missing.body.message).toMatch(/targetSvcUserId/);
      expect((await send(g, a, '')).status).toBe(400);
    });

    it('a refused send rolls back: the sender identity it created is not left behind', async () => {
      const capped = await friendsGame(t, { friends: { maxFriends: 1 } });
      const [n, b] = [uid('n'), uid('b')];
      await befriend(capped, b, uid('d'));
      expect((await send(capped, n, b)).status).toBe(400);
      const rows = await t.db.query('SELECT 1 FROM user_identities WHERE game_id = $1 AND external_id = $2', [capped.gameId, n]);
      expect(rows).toEqual([]);
    });
  });

  describe('accept, decline, cancel by id', () => {
    it('an unknown, malformed, or other-game id is 404 and changes nothing', async () => {
      const other = await friendsGame(t);
      const [a, b] = [uid('a'), uid('b')];
      const id = await sendPending(g, a, b);
      for (const fn of [accept, decline, cancel]) {
        expect((await fn(other, id)).status).toBe(404);
        expect((await fn(g, '0190a5c8-0000-7000-8000-000000000000')).status).toBe(404);
        expect((await fn(g, 'not-a-uuid')).body.code).toBe('not_found');
      }
      expect((await state(g, a, b)).state).toBe('request_outgoing');
    });

    it('a request that is no longer pending answers 404: accept twice, decline after accept, cancel after decline', async () => {
      const [a, b, c] = [uid('a'), uid('b'), uid('c')];
      const id = await sendPending(g, a, b);
      expect((await accept(g, id)).status).toBe(200);
      expect((await accept(g, id)).status).toBe(404);
      expect((await decline(g, id)).status).toBe(404);
      expect((await cancel(g, id)).status).toBe(404);
      expect((await state(g, a, b)).state).toBe('friends');
      const id2 = await sendPending(g, a, c);
      expect((await decline(g, id2)).status).toBe(204);
      expect((await cancel(g, id2)).status).toBe(404);
    });

    it('friend operations write no audit entries', async () => {
      const [a, b, c] = [uid('a'), uid('b'), uid('c')];
      await befriend(g, a, b);
      await block(g, a, c);
      const rows = await t.db.query(`SELECT action FROM ${journalAudit()} WHERE game_id = $1`, [g.gameId]);
      expect(rows).toEqual([]);
    });
  });

  describe('GET friend-requests', () => {
    it('lists inbound and outbound as complete sets, newest first; direction filters', async () => {
      const [a, b, c, d] = [uid('a'), uid('b'), uid('c'), uid('d')];
      const out1 = await sendPending(g, a, b);
      const out2 = await sendPending(g, a, c);
      const inn = await sendPending(g, d, a);
      const both = await g.get(`${U(a)}/friend-requests`);
      expect(both.status).toBe(200);
      expect(both.body.outbound.map((r: { id: string }) => r.id)).toEqual([out2, out1]);
      expect(both.body.inbound).toEqual([expect.objectContaining({ id: inn, senderSvcUserId: d, targetSvcUserId: a })]);
      expect((await g.get(`${U(a)}/friend-requests?direction=in`)).body).toEqual({ inbound: both.body.inbound, outbound: [] });
      expect((await g.get(`${U(a)}/friend-requests?direction=out`)).body).toEqual({ inbound: [], outbound: both.body.outbound });
      expect((await g.get(`${U(a)}/friend-requests?direction=both`)).body).toEqual(both.body);
    });

    it('an unknown user has empty sets (DECISIONS §24); a bad direction is 400', async () => {
      expect((await g.get(`${U(uid('ghost'))}/friend-requests`)).body).toEqual({ inbound: [], outbound: [] });
      const r = await g.get(`${U(uid('a'))}/friend-requests?direction=sideways`);
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/direction/);
    });
  });

  describe('caps (SPEC §8, DECISIONS §27: reject on reaching)', () => {
    it('maxPendingRequests counts outbound only: the request at the cap is refused, inbound ones do not count', async () => {
      const capped = await friendsGame(t, { friends: { maxPendingRequests: 2 } });
      const a = uid('a');
      await sendPending(capped, uid('in1'), a);
      await sendPending(capped, uid('in2'), a);
      await sendPending(capped, a, uid('b'));
      const id = await sendPending(capped, a, uid('c'));
      const r = await send(capped, a, uid('d'));
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/maxPendingRequests \(2\)/);
      await cancel(capped, id);
      await sendPending(capped, a, uid('e'));
    });

    it('maxFriends at send: refused when the sender or the target already has maxFriends', async () => {
      const capped = await friendsGame(t, { friends: { maxFriends: 2 } });
      const [a, b] = [uid('a'), uid('b')];
      await befriend(capped, a, uid('f1'));
      await sendPending(capped, a, b);
      await befriend(capped, a, uid('f2'));
      expect((await send(capped, a, uid('c'))).body.message).toMatch(/^userId already has maxFriends \(2\)/);
      expect((await send(capped, uid('c'), a)).body.message).toMatch(/^targetSvcUserId already has maxFriends/);
    });

    it('maxFriends at accept: refused when either party reached the cap since the request was sent', async () => {
      const capped = await friendsGame(t, { friends: { maxFriends: 1 } });
      const [a, b, c] = [uid('a'), uid('b'), uid('c')];
      const ab = await sendPending(capped, a, b);
      const ac = await sendPending(capped, a, c);
      const cb = await sendPending(capped, c, b);
      expect((await accept(capped, ab)).status).toBe(200);
      const senderFull = await accept(capped, ac);
      expect(senderFull.status).toBe(400);
      expect(senderFull.body.message).toMatch(/sender already has maxFriends/);
      const recipientFull = await accept(capped, cb);
      expect(recipientFull.status).toBe(400);
      expect(recipientFull.body.message).toMatch(/recipient already has maxFriends/);
      expect((await state(capped, a, c)).state).toBe('request_outgoing');
    });

    it('maxFriends in auto-accept mode', async () => {
      const capped = await friendsGame(t, { friends: { requestsRequired: false, maxFriends: 1 } });
      const a = uid('a');
      await befriend(capped, a, uid('b'));
      expect((await send(capped, a, uid('c'))).status).toBe(400);
    });
  });

  describe('races settled by the database', () => {
    it('two users requesting each other at once: exactly one pending request, never two, never a half friendship (x25)', async () => {
      for (let i = 0; i < 25; i++) {
        const [a, b] = [uid('a'), uid('b')];
        const results = await Promise.all([send(g, a, b), send(g, b, a)]);
        expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
        const rows = await pairRows(t, g.gameId, a, b);
        expect(rows.map((r) => r.type)).toEqual(['request']);
      }
    });

    it('auto-accept: both sending at once make one friendship of exactly two rows (x25)', async () => {
      for (let i = 0; i < 25; i++) {
        const [a, b] = [uid('a'), uid('b')];
        const results = await Promise.all([send(auto, a, b), send(auto, b, a)]);
        expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
        expect((await pairRows(t, auto.gameId, a, b)).map((r) => r.type)).toEqual(['friend', 'friend']);
      }
    });

    it('accept racing decline: one wins, the state is whole either way (x15)', async () => {
      for (let i = 0; i < 15; i++) {
        const [a, b] = [uid('a'), uid('b')];
        const id = await sendPending(g, a, b);
        const [acc, dec] = await Promise.all([accept(g, id), decline(g, id)]);
        expect(acc.status === 200 ? dec.status : acc.status).toBe(404);
        expect(acc.status === 200 || dec.status === 204).toBe(true);
        const types = (await pairRows(t, g.gameId, a, b)).map((r) => r.type);
        expect(types).toEqual(acc.status === 200 ? ['friend', 'friend'] : []);
      }
    });

    it('two accepts of one request at once: one 200, one 404, one friendship of two rows (x15)', async () => {
      for (let i = 0; i < 15; i++) {
        const [a, b] = [uid('a'), uid('b')];
        const id = await sendPending(g, a, b);
        const results = await Promise.all([accept(g, id), accept(g, id), cancel(g, id)]);
        const statuses = results.map((r) => r.status);
        expect(statuses.filter((s) => s === 200 || s === 204)).toHaveLength(1);
        expect(statuses.filter((s) => s === 404)).toHaveLength(2);
        const types = (await pairRows(t, g.gameId, a, b)).map((r) => r.type);
        expect(types).toEqual(statuses[2] === 204 ? [] : ['friend', 'friend']);
        expect((await eventsOf(t, g.gameId, 'friend.request.accepted')).filter((e) => e.actorSvcUserId === a)).toHaveLength(statuses[2] === 204 ? 0 : 1);
      }
    });

    it('concurrent accepts cannot take a user past maxFriends', async () => {
      const capped = await friendsGame(t, { friends: { maxFriends: 1 } });
      const a = uid('a');
      const ids = await Promise.all([1, 2, 3, 4].map(async () => sendPending(capped, uid('s'), a)));
      const results = await Promise.all(ids.map((id) => accept(capped, id)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      const [{ n }] = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM user_relationships WHERE game_id = $1 AND user_external_id = $2 AND type = 'friend'`,
        [capped.gameId, a],
      );
      expect(n).toBe(1);
    });

    it('the database refuses a half friendship outright (deferred mirror check)', async () => {
      const [a, b] = [uid('a'), uid('b')];
      await befriend(g, a, b);
      await expect(
        t.db.query(`DELETE FROM user_relationships WHERE game_id = $1 AND user_external_id = $2 AND type = 'friend'`, [g.gameId, a]),
      ).rejects.toThrow(/half friendship/);
      expect((await pairRows(t, g.gameId, a, b)).map((r) => r.type)).toEqual(['friend', 'friend']);
    });
  });
});
