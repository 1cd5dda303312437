import { randomUUID } from 'node:crypto';
import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';
import { insertAuditSql } from '../helpers/journal';

/**
 * SPEC §4 Admin surface: GET /v1/admin/stats, GET /v1/admin/audit (across games) and
 * GET /v1/users/:svcUserId/games (admin token, §5); §8 page sizes.
 */

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('admin overview: stats, audit across games, games of a user', () => {
  let t: TestApp;
  let seq = 0;
  const uid = (p = 'u') => `${p}-${++seq}-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const admin = (path: string) => t.http.get(path).set(asAdmin);
  async function createGroup(key: string, body: Record<string, unknown> = {}): Promise<{ id: string; name: string }> {
    const r = await t.http
      .post('/v1/groups')
      .set(bearer(key))
      .send({ kind: 'guild', name: uid('group'), visibility: 'public', ...body });
    if (r.status !== 201) throw new Error(`create group: ${r.status} ${r.text}`);
    return r.body;
  }
  async function expectOk(req: Promise<{ status: number; text: string }>, status = 200) {
    const r = await req;
    if (r.status !== status) throw new Error(`expected ${status}, got ${r.status} ${r.text}`);
  }

  describe('GET /v1/admin/stats (first: this file owns the database, so the totals are exact)', () => {
    it('counts games, live groups, their active members, and the audit entries of the last 24 hours', async () => {
      const a = await newGame(t, 'stats a');
      const b = await newGame(t, 'stats b');
      await newGame(t, 'stats c');
      const g1 = await createGroup(a.key, { creatorUserId: uid() }); // group.created, member.joined
      await expectOk(t.http.post(`/v1/groups/${g1.id}/join`).set(bearer(a.key)).send({ userId: uid() }), 201); // member.joined
      const left = uid();
      await expectOk(t.http.post(`/v1/groups/${g1.id}/join`).set(bearer(a.key)).send({ userId: left }), 201); // member.joined
      await expectOk(t.http.post(`/v1/groups/${g1.id}/leave`).set(bearer(a.key)).send({ userId: left })); // member.left
      const g2 = await createGroup(b.key, { creatorUserId: uid() }); // group.created, member.joined
      await expectOk(t.http.delete(`/v1/groups/${g2.id}`).set(bearer(b.key))); // group.deleted
      await createGroup(b.key); // group.created
      // Outside the 24-hour window, on both sides.
      for (const offset of ["- interval '24 hours 1 second'", "+ interval '1 hour'"]) {
        await t.db.query(
          insertAuditSql(['id', 'game_id', 'action', 'created_at'], `VALUES ($1, $2, 'member.updated', now() ${offset})`),
          [randomUUID(), a.gameId],
        );
      }
      const r = await admin('/v1/admin/stats');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ totalGames: 3, totalGroups: 2, totalActiveMembers: 2, totalAuditEntriesLast24h: 9 });
    });

    it('needs the admin token', async () => {
      for (const headers of [{}, bearer('jadm_wrong')]) {
        const r = await t.http.get('/v1/admin/stats').set(headers);
        expect(r.status).toBe(401);
        expect(r.body.code).toBe('invalid_admin_token');
      }
    });
  });

  describe('GET /v1/admin/audit', () => {
    it('the newest entries of every game with names and the soft-deletion flag, game-wide ones with a null group', async () => {
      const g = await newGame(t, 'audit names');
      const grp = await createGroup(g.key, { creatorUserId: uid() });
      const gone = await createGroup(g.key);
      await expectOk(t.http.delete(`/v1/groups/${gone.id}`).set(bearer(g.key)));
      await expectOk(t.http.post('/v1/bans').set(bearer(g.key)).send({ userId: uid('banned') }), 201);
      const r = await admin('/v1/admin/audit?limit=100');
      expect(r.status).toBe(200);
      const mine = r.body.items.filter((i: { gameId: string }) => i.gameId === g.gameId);
      const byAction = (action: string) => mine.filter((i: { action: string }) => i.action === action);
      expect(mine.map((i: { action: string }) => i.action).sort()).toEqual([
        'game.user.banned',
        'group.created',
        'group.created',
        'group.deleted',
        'member.joined',
      ]);
      expect(byAction('game.user.banned')[0]).toEqual({
        id: expect.any(String),
        action: 'game.user.banned',
        gameId: g.gameId,
        gameName: 'audit names',
        groupId: null,
        groupName: null,
        groupSoftDeleted: false,
        actorUserId: null,
        targetId: expect.stringMatching(/^banned-/),
        payload: expect.any(Object),
        createdAt: expect.stringMatching(ISO_MS),
      });
      expect(byAction('group.deleted')[0]).toMatchObject({ groupId: gone.id, groupName: gone.name, groupSoftDeleted: true });
      expect(byAction('member.joined')[0]).toMatchObject({ groupId: grp.id, groupName: grp.name, groupSoftDeleted: false });
      expect(byAction('group.created').map((i: { groupId: string; groupSoftDeleted: boolean }) => [i.groupId, i.groupSoftDeleted]).sort())
        .toEqual([[grp.id, false], [gone.id, true]].sort());
    });

    it('orders createdAt descending, then id descending', async () => {
      const g = await newGame(t, 'audit order');
      await t.db.query(
        insertAuditSql(['id', 'game_id', 'action', 'created_at'], `SELECT gen_random_uuid(), $1, 'member.updated', now() + interval '1 day' FROM generate_series(1, 5)`),
        [g.gameId],
      );
      const r = await admin('/v1/admin/audit?limit=5');
      const items: { id: string; createdAt: string; gameId: string }[] = r.body.items;
      expect(items.every((i) => i.gameId === g.gameId)).toBe(true);
      expect(items.map((i) => i.id)).toEqual(items.map((i) => i.id).sort().reverse());
      const all = (await admin('/v1/admin/audit?limit=100')).body.items as { id: string; createdAt: string }[];
      for (let i = 1; i < all.length; i++) {
        const [x, y] = [all[i - 1], all[i]];
        expect(x.createdAt > y.createdAt || (x.createdAt === y.createdAt && x.id > y.id)).toBe(true);
      }
      // Each of the game's rows is an audit entry alone.
      await t.db.query('DELETE FROM journal WHERE game_id = $1 AND action IS NOT NULL AND body IS NULL', [g.gameId]);
    });

    it('limit: default 20, 1 to the page cap; anything else is 400 naming limit', async () => {
      const g = await newGame(t, 'audit volume');
      await t.db.query(
        insertAuditSql(['id', 'game_id', 'action'], `SELECT gen_random_uuid(), $1, 'member.updated' FROM generate_series(1, 25)`),
        [g.gameId],
      );
      expect((await admin('/v1/admin/audit')).body.items).toHaveLength(20);
      expect((await admin('/v1/admin/audit?limit=1')).body.items).toHaveLength(1);
      expect((await admin('/v1/admin/audit?limit=100')).status).toBe(200);
      for (const bad of ['0', '101', 'abc', '-5']) {
        const r = await admin(`/v1/admin/audit?limit=${bad}`);
        expect(r.status).toBe(400);
        expect(r.body.code).toBe('bad_request');
        expect(r.body.message).toMatch(/^limit/);
      }
    });

    it('the cap follows SVC_MAX_PAGE_SIZE', async () => {
      const small = await startTestApp({ SVC_MAX_PAGE_SIZE: '10' }, t.db);
      try {
        expect((await small.http.get('/v1/admin/audit?limit=10').set(asAdmin)).body.items).toHaveLength(10);
        expect((await small.http.get('/v1/admin/audit?limit=11').set(asAdmin)).status).toBe(400);
        expect((await small.http.get('/v1/admin/audit').set(asAdmin)).body.items).toHaveLength(10);
      } finally {
        await small.close();
      }
    });
  });

  describe('GET /v1/users/:svcUserId/games', () => {
    it('lists every game the user has an identity in, gameId ascending, counting active memberships of live groups', async () => {
      const a = await newGame(t, 'user games a');
      const b = await newGame(t, 'user games b');
      const c = await newGame(t, 'user games c');
      const player = uid('player');
      const g1 = await createGroup(a.key, { creatorUserId: player }); // active
      const g2 = await createGroup(a.key);
      await expectOk(t.http.post(`/v1/groups/${g2.id}/join`).set(bearer(a.key)).send({ userId: player }), 201); // active
      const g3 = await createGroup(a.key);
      await expectOk(t.http.post(`/v1/groups/${g3.id}/join`).set(bearer(a.key)).send({ userId: player }), 201);
      await expectOk(t.http.post(`/v1/groups/${g3.id}/leave`).set(bearer(a.key)).send({ userId: player })); // left
      const g4 = await createGroup(a.key);
      await expectOk(t.http.post(`/v1/groups/${g4.id}/join`).set(bearer(a.key)).send({ userId: player }), 201);
      await expectOk(t.http.delete(`/v1/groups/${g4.id}`).set(bearer(a.key))); // soft-deleted
      void g1;
      const [{ user_id: svc }] = await t.db.query<{ user_id: string }>(
        'SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2',
        [a.gameId, player],
      );
      // The same internal user in game b (no memberships) and game c (one), linked by the operator.
      await t.db.query(`INSERT INTO user_identities (game_id, external_id, user_id) VALUES ($1, 'alt-b', $3), ($2, 'alt-c', $3)`, [
        b.gameId,
        c.gameId,
        svc,
      ]);
      const gc = await createGroup(c.key);
      await expectOk(t.http.post(`/v1/groups/${gc.id}/join`).set(bearer(c.key)).send({ userId: 'alt-c' }), 201);
      const r = await admin(`/v1/users/${svc}/games`);
      expect(r.status).toBe(200);
      const expected = [
        { gameId: a.gameId, externalUserId: player, joinedGroupCount: 2 },
        { gameId: b.gameId, externalUserId: 'alt-b', joinedGroupCount: 0 },
        { gameId: c.gameId, externalUserId: 'alt-c', joinedGroupCount: 1 },
      ].sort((x, y) => (x.gameId < y.gameId ? -1 : 1));
      expect(r.body).toEqual({ svcUserId: svc, games: expected });
    });

    it('an unknown or malformed svcUserId is 200 with games [], never 404', async () => {
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const r = await admin(`/v1/users/${id}/games`);
        expect(r.status).toBe(200);
        expect(r.body).toEqual({ svcUserId: id, games: [] });
      }
    });

    it('takes the admin token, never an API key', async () => {
      const g = await newGame(t, 'user games key');
      for (const headers of [{}, bearer(g.key)]) {
        const r = await t.http.get(`/v1/users/${randomUUID()}/games`).set(headers);
        expect(r.status).toBe(401);
        expect(r.body.code).toBe('invalid_admin_token');
      }
    });
  });
});
