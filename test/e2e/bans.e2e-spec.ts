import { randomUUID } from 'node:crypto';
import { expectError } from '../helpers/errors';
import { postGroup, postJoin } from '../helpers/groups';
import { identityOf } from '../helpers/identities';
import { journalAudit, journalEvents } from '../helpers/journal';
import { seqUid as uid } from '../helpers/ids';
import { EVENT_ID, ISO_MS, UUID } from '../helpers/shapes';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * SPEC §2 Ban / Ban history, §3 Game-wide ban, §4 Game-wide bans (and their enforcement sites:
 * join, invitation accept, bulk invite), §6 (game.user.banned / unbanned), §8 (reason ≤ 500, page
 * sizes); DECISIONS §4 (bulk invite per-row banned errors), §5 (per-group bans), §12 (active
 * re-ban), §21 (a lifted ban appears in no list), §28 (leftAt on ban from active).
 */

interface Ban {
  id: string;
  gameId: string;
  userId: string;
  bannedAt: string;
  expiresAt: string | null;
  reason: string | null;
  bannedBy: string | null;
}

interface HistoryEntry {
  id: string;
  gameId: string;
  userId: string;
  scope: 'game' | 'group';
  groupId: string | null;
  kind: 'set' | 'lifted';
  reason: string | null;
  expiresAt: string | null;
  eventAt: string;
  actorUserId: string | null;
}

interface Member {
  id: string;
  groupId: string;
  userId: string;
  status: string;
  roles: string[];
  joinedAt: string;
  leftAt: string | null;
  bannedUntil: string | null;
}

const future = (ms: number) => new Date(Date.now() + ms).toISOString();
const past = (ms: number) => new Date(Date.now() - ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** (bannedAt desc, id desc) */
const newestFirst = <T extends { id: string }>(at: (x: T) => string) => (a: T, b: T) =>
  Date.parse(at(b)) - Date.parse(at(a)) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

describe('bans', () => {
  let t: TestApp;
  let gameId: string;
  let auth: Record<string, string>;
  let otherAuth: Record<string, string>;

  const enc = encodeURIComponent;

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'bans'));
    ({ auth: otherAuth } = await authedGame(t, 'bans other'));
  });
  afterAll(() => t.close());

  /** A fresh game, for tests that read game-wide lists. */
  function freshGame(): Promise<{ gameId: string; auth: Record<string, string> }> {
    return authedGame(t, 'bans fresh');
  }
  const banReq = (body: unknown, as = auth) => t.http.post('/v1/bans').set(as).send(body as object);
  async function ban(body: Record<string, unknown>, as = auth): Promise<Ban> {
    const r = await banReq(body, as);
    if (r.status !== 201) throw new Error(`ban: ${r.status} ${r.text}`);
    return r.body;
  }
  const getBan = (userId: string, as = auth) => t.http.get(`/v1/bans/${enc(userId)}`).set(as);
  const liftReq = (userId: string, as = auth) => t.http.delete(`/v1/bans/${enc(userId)}`).set(as);
  async function listBans(query = '', as = auth): Promise<{ items: Ban[]; nextCursor: string | null }> {
    const r = await t.http.get(`/v1/bans${query}`).set(as);
    if (r.status !== 200) throw new Error(`list: ${r.status} ${r.text}`);
    return r.body;
  }
  const historyReq = (userId: string, query = '', as = auth) => t.http.get(`/v1/bans/${enc(userId)}/history${query}`).set(as);
  async function history(userId: string, query = '', as = auth): Promise<{ items: HistoryEntry[]; nextCursor: string | null }> {
    const r = await historyReq(userId, query, as);
    if (r.status !== 200) throw new Error(`history: ${r.status} ${r.text}`);
    return r.body;
  }
  function createGroup(body: Record<string, unknown> = {}, as = auth): Promise<string> {
    return postGroup(t, as, { kind: 'guild', name: 'G', visibility: 'public', ...body }).then((g) => g.id);
  }
  const joinReq = (groupId: string, userId: string, as = auth) => postJoin(t, as, groupId, { userId });
  const groupBanReq = (groupId: string, body: unknown, as = auth) => t.http.post(`/v1/groups/${groupId}/bans`).set(as).send(body as object);
  const groupUnbanReq = (groupId: string, userId: string, as = auth) => t.http.delete(`/v1/groups/${groupId}/bans/${enc(userId)}`).set(as);
  async function groupBan(groupId: string, body: Record<string, unknown>): Promise<Member> {
    const r = await groupBanReq(groupId, body);
    if (r.status !== 201) throw new Error(`group ban: ${r.status} ${r.text}`);
    return r.body;
  }
  async function invite(groupId: string, targetUserId?: string): Promise<string> {
    const r = await t.http
      .post(`/v1/groups/${groupId}/invitations`)
      .set(auth)
      .send(targetUserId ? { targetUserId } : {});
    if (r.status !== 201) throw new Error(`invite: ${r.status} ${r.text}`);
    return r.body.code;
  }
  const acceptReq = (code: string, userId: string) => t.http.post(`/v1/invitations/${code}/accept`).set(auth).send({ userId });
  const bulkReq = (groupId: string, rows: unknown[]) => t.http.post(`/v1/groups/${groupId}/bulk-invite`).set(auth).send({ rows });
  function svcIdOf(userId: string, game = gameId): Promise<string | null> {
    return identityOf(t, game, userId);
  }
  const gameOutbox = (game: string, type: string) =>
    t.db.query<{ group_id: string | null; body: Record<string, unknown> }>(
      `SELECT group_id, body FROM ${journalEvents()} WHERE game_id = $1 AND type = $2 ORDER BY created_at, id`,
      [game, type],
    );
  const gameAudits = (game: string, action: string) =>
    t.db.query<{ group_id: string | null; actor_user_id: string | null; target_id: string | null; payload: Record<string, unknown> }>(
      `SELECT group_id, actor_user_id, target_id, payload FROM ${journalAudit()} WHERE game_id = $1 AND action = $2 ORDER BY created_at, id`,
      [game, action],
    );

  /** Messages of the two scopes, read off real rejections (SPEC §4: the broader scope is named). */
  async function banMessages(): Promise<{ game: string; group: string }> {
    const g = await createGroup();
    const gameBanned = uid('gb');
    await ban({ userId: gameBanned });
    const groupBanned = uid('grb');
    await groupBan(g, { userId: groupBanned });
    const a = await joinReq(g, gameBanned);
    const b = await joinReq(g, groupBanned);
    expectError(a, 403, 'banned');
    expectError(b, 403, 'banned');
    expect(a.body.message).not.toBe(b.body.message);
    return { game: a.body.message!, group: b.body.message! };
  }

  // ---------------------------------------------------------------------------------------------
  describe('POST /v1/bans', () => {
    it('201 Ban with nulls by default; the user identity is created', async () => {
      const userId = uid();
      expect(await svcIdOf(userId)).toBeNull();
      const r = await banReq({ userId });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.stringMatching(UUID),
        gameId,
        userId,
        bannedAt: expect.stringMatching(ISO_MS),
        expiresAt: null,
        reason: null,
        bannedBy: null,
      });
      expect(Math.abs(Date.parse(r.body.bannedAt) - Date.now())).toBeLessThan(60_000);
      expect(await svcIdOf(userId)).toMatch(UUID);
      expect((await getBan(userId)).body).toEqual(r.body);
    });

    it('actorUserId becomes bannedBy, the audit actor (internal id) and the history actor; both identities are created', async () => {
      const g = await freshGame();
      const userId = uid();
      const actor = uid('mod');
      const exp = future(3_600_000);
      const b = await ban({ userId, reason: 'griefing', expiresAt: exp, actorUserId: actor }, g.auth);
      expect(b).toMatchObject({ userId, reason: 'griefing', expiresAt: exp, bannedBy: actor });
      const actorSvc = await svcIdOf(actor, g.gameId);
      expect(actorSvc).toMatch(UUID);
      expect(await svcIdOf(userId, g.gameId)).toMatch(UUID);
      const rows = await gameAudits(g.gameId, 'game.user.banned');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ group_id: null, actor_user_id: actorSvc, target_id: userId });
      expect(rows[0].payload).toMatchObject({ reason: 'griefing', expiresAt: exp });
      const h = await history(userId, '', g.auth);
      expect(h.items).toHaveLength(1);
      expect(h.items[0]).toEqual({
        id: expect.stringMatching(UUID),
        gameId: g.gameId,
        userId,
        scope: 'game',
        groupId: null,
        kind: 'set',
        reason: 'griefing',
        expiresAt: exp,
        eventAt: expect.stringMatching(ISO_MS),
        actorUserId: actor,
      });
    });

    it('without an actor the audit actor is null', async () => {
      const g = await freshGame();
      await ban({ userId: uid() }, g.auth);
      expect((await gameAudits(g.gameId, 'game.user.banned'))[0].actor_user_id).toBeNull();
    });

    it('an unknown body key is 400 and nothing is banned or created', async () => {
      const g = await freshGame();
      const userId = uid();
      const r = await banReq({ userId, duration: '1d' }, g.auth);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain('duration');
      expectError(await getBan(userId, g.auth), 404, 'not_found');
      expect(await svcIdOf(userId, g.gameId)).toBeNull();
      expect(await t.db.query('SELECT 1 FROM game_bans WHERE game_id = $1', [g.gameId])).toHaveLength(0);
      expect(await gameAudits(g.gameId, 'game.user.banned')).toHaveLength(0);
      expect(await gameOutbox(g.gameId, 'game.user.banned')).toHaveLength(0);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['missing userId', { userId: undefined }, 'userId'],
      ['empty userId', { userId: '' }, 'userId'],
      ['numeric userId', { userId: 7 }, 'userId'],
      ['reason of 501 chars', { reason: 'r'.repeat(501) }, 'reason'],
      ['numeric reason', { reason: 5 }, 'reason'],
      ['unparseable expiresAt', { expiresAt: 'tomorrow' }, 'expiresAt'],
      ['numeric expiresAt', { expiresAt: 1893456000000 }, 'expiresAt'],
      ['expiresAt without a zone', { expiresAt: '2030-01-01T00:00:00' }, 'expiresAt'],
      ['impossible expiresAt', { expiresAt: '2030-13-01T00:00:00Z' }, 'expiresAt'],
      ['empty actorUserId', { actorUserId: '' }, 'actorUserId'],
      ['a NUL character in userId', { userId: 'bad\u0000user' }, 'userId'],
      ['a NUL character in reason', { reason: 'bad\u0000reason' }, 'reason'],
      ['a NUL character in actorUserId', { actorUserId: 'bad\u0000mod' }, 'actorUserId'],
    ])('%s is 400 naming the field', async (_label, fields, field) => {
      const userId = uid();
      const body: Record<string, unknown> = { userId, ...fields };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      const r = await banReq(body);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain(field);
      expectError(await getBan(userId), 404, 'not_found');
      expect(await svcIdOf(userId)).toBeNull();
    });

    it('reason of 500 chars and explicit nulls are accepted', async () => {
      const a = await ban({ userId: uid(), reason: 'r'.repeat(500) });
      expect(a.reason).toBe('r'.repeat(500));
      const b = await ban({ userId: uid(), reason: null, expiresAt: null });
      expect(b).toMatchObject({ reason: null, expiresAt: null });
    });

    it('expiresAt is any ISO 8601 instant with a zone, returned in UTC with milliseconds', async () => {
      expect((await ban({ userId: uid(), expiresAt: '2030-01-01T00:00:00Z' })).expiresAt).toBe('2030-01-01T00:00:00.000Z');
      expect((await ban({ userId: uid(), expiresAt: '2030-01-01T02:00:00+02:00' })).expiresAt).toBe('2030-01-01T00:00:00.000Z');
      expect((await ban({ userId: uid(), expiresAt: '2030-06-01T12:34:56.789Z' })).expiresAt).toBe('2030-06-01T12:34:56.789Z');
    });

    it('a past expiresAt is accepted (201) and reads as expired', async () => {
      const g = await freshGame();
      const userId = uid();
      const exp = past(60_000);
      const b = await ban({ userId, expiresAt: exp }, g.auth);
      expect(b.expiresAt).toBe(exp);
      expectError(await getBan(userId, g.auth), 404, 'not_found');
      expect((await listBans('', g.auth)).items).toEqual([]);
      expect((await listBans('?includeExpired=true', g.auth)).items).toEqual([b]);
      expectError(await liftReq(userId, g.auth), 404, 'not_found');
      const group = await createGroup({}, g.auth);
      expect((await joinReq(group, userId, g.auth)).status).toBe(201);
    });

    it('fires game.user.banned with svcUserId (the external id), reason and expiresAt, and no groupId', async () => {
      const g = await freshGame();
      const userId = uid();
      const exp = future(86_400_000);
      await ban({ userId, reason: 'spam', expiresAt: exp, actorUserId: uid('mod') }, g.auth);
      const events = await gameOutbox(g.gameId, 'game.user.banned');
      expect(events).toHaveLength(1);
      expect(events[0].group_id).toBeNull();
      expect(events[0].body).toEqual({
        id: expect.stringMatching(EVENT_ID),
        type: 'game.user.banned',
        gameId: g.gameId,
        occurredAt: expect.stringMatching(ISO_MS),
        svcUserId: userId,
        reason: 'spam',
        expiresAt: exp,
      });
      await ban({ userId: uid() }, g.auth);
      const second = (await gameOutbox(g.gameId, 'game.user.banned'))[1].body;
      expect(second).toMatchObject({ reason: null, expiresAt: null });
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('re-ban', () => {
    it('while active: bannedAt kept, reason and expiresAt updated, history set row and event again (DECISIONS §12)', async () => {
      const g = await freshGame();
      const userId = uid();
      const first = await ban({ userId, reason: 'first', expiresAt: future(3_600_000) }, g.auth);
      await sleep(20);
      const exp2 = future(7_200_000);
      const r = await banReq({ userId, reason: 'second', expiresAt: exp2, actorUserId: 'mod-2' }, g.auth);
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ userId, bannedAt: first.bannedAt, reason: 'second', expiresAt: exp2, bannedBy: 'mod-2' });
      expect((await getBan(userId, g.auth)).body).toEqual(r.body);
      const h = await history(userId, '', g.auth);
      expect(h.items.map((e) => [e.kind, e.reason])).toEqual([
        ['set', 'second'],
        ['set', 'first'],
      ]);
      const events = await gameOutbox(g.gameId, 'game.user.banned');
      expect(events.map((e) => e.body.reason)).toEqual(['first', 'second']);
      expect(await gameAudits(g.gameId, 'game.user.banned')).toHaveLength(2);
      // still one ban row
      expect((await listBans('?includeExpired=true', g.auth)).items).toHaveLength(1);
    });

    it('to a permanent ban: expiresAt null replaces a timed one', async () => {
      const userId = uid();
      await ban({ userId, expiresAt: future(3_600_000) });
      expect((await ban({ userId, expiresAt: null })).expiresAt).toBeNull();
      expect((await getBan(userId)).body.expiresAt).toBeNull();
    });

    it('once expired: bannedAt refreshed to now and the ban is active again', async () => {
      const userId = uid();
      const first = await ban({ userId, expiresAt: past(60_000) });
      await sleep(20);
      const r = await banReq({ userId, reason: 'again', expiresAt: null });
      expect(r.status).toBe(201);
      expect(Date.parse(r.body.bannedAt)).toBeGreaterThan(Date.parse(first.bannedAt));
      expect(Math.abs(Date.parse(r.body.bannedAt) - Date.now())).toBeLessThan(60_000);
      expect(r.body).toMatchObject({ reason: 'again', expiresAt: null });
      expect((await getBan(userId)).body).toEqual(r.body);
    });

    it('two concurrent bans of one user: both succeed, one ban row, two history rows', async () => {
      const g = await freshGame();
      const userId = uid();
      const results = await Promise.all([banReq({ userId, reason: 'a' }, g.auth), banReq({ userId, reason: 'b' }, g.auth)]);
      expect(results.map((r) => r.status)).toEqual([201, 201]);
      expect(await t.db.query('SELECT 1 FROM game_bans WHERE game_id = $1', [g.gameId])).toHaveLength(1);
      expect((await history(userId, '', g.auth)).items).toHaveLength(2);
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('DELETE /v1/bans/:userId (lift)', () => {
    it('204; the row is removed; GET and a second DELETE are 404; history holds set and lifted', async () => {
      const g = await freshGame();
      const userId = uid();
      const b = await ban({ userId, reason: 'r1' }, g.auth);
      await sleep(5);
      const r = await liftReq(userId, g.auth);
      expect(r.status).toBe(204);
      expect(r.text).toBe('');
      expect(await t.db.query('SELECT 1 FROM game_bans WHERE id = $1', [b.id])).toHaveLength(0);
      expectError(await getBan(userId, g.auth), 404, 'not_found');
      expectError(await liftReq(userId, g.auth), 404, 'not_found');
      const h = await history(userId, '', g.auth);
      expect(h.items.map((e) => e.kind)).toEqual(['lifted', 'set']);
      expect(h.items[0]).toMatchObject({ scope: 'game', groupId: null, userId, gameId: g.gameId });
      expect(h.nextCursor).toBeNull();
    });

    it('fires game.user.unbanned (svcUserId, no groupId) and audits game.user.unbanned without a group', async () => {
      const g = await freshGame();
      const userId = uid();
      await ban({ userId }, g.auth);
      expect((await liftReq(userId, g.auth)).status).toBe(204);
      const events = await gameOutbox(g.gameId, 'game.user.unbanned');
      expect(events).toHaveLength(1);
      expect(events[0].group_id).toBeNull();
      expect(events[0].body).toEqual({
        id: expect.stringMatching(EVENT_ID),
        type: 'game.user.unbanned',
        gameId: g.gameId,
        occurredAt: expect.stringMatching(ISO_MS),
        svcUserId: userId,
      });
      const rows = await gameAudits(g.gameId, 'game.user.unbanned');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ group_id: null, target_id: userId });
    });

    it('a never-seen user, an expired ban, or a ban of another game is 404', async () => {
      expectError(await liftReq(uid('ghost')), 404, 'not_found');
      const expired = uid();
      await ban({ userId: expired, expiresAt: past(1_000) });
      expectError(await liftReq(expired), 404, 'not_found');
      const theirs = uid();
      await ban({ userId: theirs }, otherAuth);
      expectError(await liftReq(theirs), 404, 'not_found');
      expect((await getBan(theirs, otherAuth)).status).toBe(200);
    });

    it('two concurrent lifts: one 204, one 404, one lifted history row', async () => {
      const userId = uid();
      await ban({ userId });
      const results = await Promise.all([liftReq(userId), liftReq(userId)]);
      expect(results.map((r) => r.status).sort()).toEqual([204, 404]);
      expect((await history(userId)).items.map((e) => e.kind)).toEqual(['lifted', 'set']);
    });

    it('a ban can be set again after a lift (a new bannedAt)', async () => {
      const userId = uid();
      const first = await ban({ userId });
      expect((await liftReq(userId)).status).toBe(204);
      await sleep(5);
      const again = await ban({ userId });
      expect(Date.parse(again.bannedAt)).toBeGreaterThan(Date.parse(first.bannedAt));
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('GET /v1/bans and GET /v1/bans/:userId', () => {
    it('reads the ban in force; 404 for a never-seen user, an expired ban, another game', async () => {
      const userId = uid();
      const b = await ban({ userId, reason: 'toxic' });
      expect((await getBan(userId)).body).toEqual(b);
      expectError(await getBan(uid('ghost')), 404, 'not_found');
      expectError(await getBan(userId, otherAuth), 404, 'not_found');
    });

    it('reading never creates an identity', async () => {
      const ghost = uid('ghost');
      await getBan(ghost);
      await history(ghost);
      await liftReq(ghost);
      expect(await svcIdOf(ghost)).toBeNull();
    });

    it('a user id longer than 100 characters works in the path (no userId cap, SPEC §8)', async () => {
      const userId = `long-${'x'.repeat(300)}`;
      const b = await ban({ userId });
      const r = await getBan(userId);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(b);
      expect((await historyReq(userId)).status).toBe(200);
      expect((await liftReq(userId)).status).toBe(204);
    });

    it('lists active bans newest first; includeExpired adds expired ones; lifted ones never appear', async () => {
      const g = await freshGame();
      const expired = await ban({ userId: uid('expired'), expiresAt: past(60_000) }, g.auth);
      await sleep(5);
      const timed = await ban({ userId: uid('timed'), expiresAt: future(3_600_000) }, g.auth);
      await sleep(5);
      const lifted = await ban({ userId: uid('lifted') }, g.auth);
      await sleep(5);
      const permanent = await ban({ userId: uid('permanent') }, g.auth);
      expect((await liftReq(lifted.userId, g.auth)).status).toBe(204);
      expect(await listBans('', g.auth)).toEqual({ items: [permanent, timed], nextCursor: null });
      expect((await listBans('?includeExpired=false', g.auth)).items).toEqual([permanent, timed]);
      expect((await listBans('?includeExpired=true', g.auth)).items).toEqual([permanent, timed, expired]);
      expect((await listBans('?includeExpired=true', otherAuth)).items.map((b) => b.id)).not.toContain(permanent.id);
    });

    it('keyset walk: every ban exactly once in (bannedAt desc, id desc), including same-instant ties', async () => {
      const g = await freshGame();
      const all: Ban[] = [];
      for (let i = 0; i < 4; i++) all.push(await ban({ userId: uid(`k${i}`) }, g.auth));
      all.push(...(await Promise.all([0, 1, 2].map((i) => ban({ userId: uid(`c${i}`) }, g.auth)))));
      // force a tie on bannedAt for two rows: the id must break it
      await t.db.query('UPDATE game_bans SET banned_at = $1 WHERE id = ANY($2)', ['2020-01-01T00:00:00.000Z', [all[0].id, all[1].id]]);
      all[0].bannedAt = all[1].bannedAt = '2020-01-01T00:00:00.000Z';
      const expected = [...all].sort(newestFirst((b: Ban) => b.bannedAt)).map((b) => b.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: { items: Ban[]; nextCursor: string | null } = await listBans(`?limit=3${cursor ? `&cursor=${enc(cursor)}` : ''}`, g.auth);
        expect(page.items.length).toBeLessThanOrEqual(3);
        seen.push(...page.items.map((b) => b.id));
        cursor = page.nextCursor;
        pages++;
      } while (cursor && pages < 10);
      expect(seen).toEqual(expected);
      expect(pages).toBe(3);
    });

    it('limit 0, over the cap, non-numeric, a bad includeExpired or an unresolvable cursor are 400', async () => {
      expectError(await t.http.get('/v1/bans?limit=0').set(auth), 400, 'bad_request');
      expectError(await t.http.get('/v1/bans?limit=101').set(auth), 400, 'bad_request');
      expectError(await t.http.get('/v1/bans?limit=abc').set(auth), 400, 'bad_request');
      expectError(await t.http.get('/v1/bans?includeExpired=yes').set(auth), 400, 'bad_request');
      expectError(await t.http.get(`/v1/bans?cursor=${enc('not-a-cursor')}`).set(auth), 400, 'bad_request');
      // a cursor of another list (ban history) or of another game does not resolve here
      const userId = uid();
      await ban({ userId });
      await ban({ userId });
      const h = await history(userId, '?limit=1');
      expect(h.nextCursor).toEqual(expect.any(String));
      expectError(await t.http.get(`/v1/bans?cursor=${enc(h.nextCursor!)}`).set(auth), 400, 'bad_request');
      const g = await freshGame();
      await ban({ userId: uid() }, g.auth);
      await ban({ userId: uid() }, g.auth);
      const theirs = await listBans('?limit=1', g.auth);
      expectError(await t.http.get(`/v1/bans?cursor=${enc(theirs.nextCursor!)}`).set(auth), 400, 'bad_request');
    });

    it('no key is 401', async () => {
      expectError(await t.http.get('/v1/bans'), 401, 'invalid_api_key');
      expectError(await t.http.post('/v1/bans').send({ userId: 'x' }), 401, 'invalid_api_key');
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('GET /v1/bans/:userId/history', () => {
    it('newest first across both scopes; scope and groupId filters', async () => {
      const userId = uid();
      const g1 = await createGroup();
      const g2 = await createGroup();
      await ban({ userId, reason: 'game-1' });
      await sleep(5);
      await groupBan(g1, { userId, reason: 'group-1' });
      await sleep(5);
      expect((await liftReq(userId)).status).toBe(204);
      await sleep(5);
      await groupBan(g2, { userId, reason: 'group-2', actorUserId: 'mod-x' });
      await sleep(5);
      expect((await groupUnbanReq(g1, userId)).status).toBe(200);

      const all = await history(userId);
      expect(all.items.map((e) => [e.scope, e.kind, e.groupId, e.reason])).toEqual([
        ['group', 'lifted', g1, null],
        ['group', 'set', g2, 'group-2'],
        ['game', 'lifted', null, null],
        ['group', 'set', g1, 'group-1'],
        ['game', 'set', null, 'game-1'],
      ]);
      expect(all.items.map((e) => e.id)).toEqual([...all.items].sort(newestFirst((e: HistoryEntry) => e.eventAt)).map((e) => e.id));
      expect(all.items[1].actorUserId).toBe('mod-x');
      expect((await history(userId, '?scope=game')).items.map((e) => e.kind)).toEqual(['lifted', 'set']);
      expect((await history(userId, '?scope=group')).items.map((e) => [e.groupId, e.kind])).toEqual([
        [g1, 'lifted'],
        [g2, 'set'],
        [g1, 'set'],
      ]);
      expect((await history(userId, `?groupId=${g1}`)).items.map((e) => e.kind)).toEqual(['lifted', 'set']);
      expect((await history(userId, `?groupId=${g2}&scope=group`)).items.map((e) => e.kind)).toEqual(['set']);
    });

    it('groupId with scope=game, or an unknown scope, is 400', async () => {
      const userId = uid();
      await ban({ userId });
      const g = await createGroup();
      expectError(await historyReq(userId, `?groupId=${g}&scope=game`), 400, 'bad_request');
      expectError(await historyReq(userId, '?scope=both'), 400, 'bad_request');
      expectError(await historyReq(userId, '?limit=0'), 400, 'bad_request');
    });

    it('keyset walk over many rows', async () => {
      const userId = uid();
      for (let i = 0; i < 5; i++) await ban({ userId, reason: `r${i}` });
      const p1 = await history(userId, '?limit=2');
      const p2 = await history(userId, `?limit=2&cursor=${enc(p1.nextCursor!)}`);
      const p3 = await history(userId, `?limit=2&cursor=${enc(p2.nextCursor!)}`);
      expect(p3.nextCursor).toBeNull();
      expect([...p1.items, ...p2.items, ...p3.items].map((e) => e.reason)).toEqual(['r4', 'r3', 'r2', 'r1', 'r0']);
      // a cursor of another user's history does not resolve
      const other = uid();
      await ban({ userId: other });
      expectError(await historyReq(other, `?cursor=${enc(p1.nextCursor!)}`), 400, 'bad_request');
    });

    it('lazy expiry writes no row', async () => {
      const userId = uid();
      const exp = Date.now() + 1_200;
      await ban({ userId, expiresAt: new Date(exp).toISOString() });
      expect((await getBan(userId)).status).toBe(200);
      while (Date.now() < exp + 300) await sleep(50);
      expectError(await getBan(userId), 404, 'not_found');
      expect((await listBans()).items.map((b) => b.userId)).not.toContain(userId);
      expect((await history(userId)).items.map((e) => e.kind)).toEqual(['set']);
    });

    it('a never-seen user has an empty history (not 404)', async () => {
      expect(await history(uid('ghost'))).toEqual({ items: [], nextCursor: null });
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('per-group bans (DECISIONS §5)', () => {
    it('an active member: 201 Member banned with bannedUntil, leftAt set, roles kept, no longer counted', async () => {
      const g = await createGroup();
      const userId = uid();
      const joined = (await joinReq(g, userId)).body as Member;
      const role = (await t.http.post(`/v1/groups/${g}/roles`).set(auth).send({ name: 'r', priority: 1 })).body;
      await t.http.post(`/v1/groups/${g}/members/${enc(userId)}/roles/${role.id}`).set(auth);
      const until = future(86_400_000);
      const r = await groupBanReq(g, { userId, reason: 'spam', expiresAt: until });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ id: joined.id, groupId: g, userId, status: 'banned', bannedUntil: until, roles: [role.id], joinedAt: joined.joinedAt });
      expect(r.body.leftAt).toMatch(ISO_MS);
      expect((await t.http.get(`/v1/members/${joined.id}`).set(auth)).body).toEqual(r.body);
      expect((await t.http.get(`/v1/groups/${g}`).set(auth)).body.memberCount).toBe(0);
    });

    it('a non-member gets a member row in status banned (permanent: bannedUntil null); the identity is created', async () => {
      const g = await createGroup();
      const userId = uid();
      const r = await groupBanReq(g, { userId });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ groupId: g, userId, status: 'banned', bannedUntil: null, roles: [] });
      expect(r.body.id).toMatch(UUID);
      expect(await svcIdOf(userId)).toMatch(UUID);
    });

    it('history rows of scope group, events member.banned / member.unbanned in the outbox, audits', async () => {
      const g = await createGroup();
      const userId = uid();
      await joinReq(g, userId);
      const until = future(3_600_000);
      const banned = await groupBan(g, { userId, reason: 'afk', expiresAt: until, actorUserId: 'mod-1' });
      const r = await groupUnbanReq(g, userId);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: banned.id, status: 'left', bannedUntil: null });
      const h = await history(userId);
      expect(h.items).toEqual([
        expect.objectContaining({ scope: 'group', groupId: g, kind: 'lifted', userId, gameId }),
        expect.objectContaining({ scope: 'group', groupId: g, kind: 'set', reason: 'afk', expiresAt: until, actorUserId: 'mod-1' }),
      ]);
      const events = await t.db.query<{ type: string; group_id: string; body: Record<string, unknown> }>(
        `SELECT type, group_id, body FROM ${journalEvents()} WHERE group_id = $1 AND type IN ('member.banned', 'member.unbanned') ORDER BY created_at, id`,
        [g],
      );
      expect(events.map((e) => e.type)).toEqual(['member.banned', 'member.unbanned']);
      expect(events[0].body).toMatchObject({ type: 'member.banned', gameId, groupId: g, member: banned });
      expect(events[1].body).toMatchObject({ type: 'member.unbanned', gameId, groupId: g, member: r.body });
      const audit = await t.db.query<{ action: string; target_id: string }>(
        `SELECT action, target_id FROM ${journalAudit()} WHERE group_id = $1 AND action IN ('member.banned', 'member.unbanned') ORDER BY created_at, id`,
        [g],
      );
      expect(audit).toEqual([
        { action: 'member.banned', target_id: userId },
        { action: 'member.unbanned', target_id: userId },
      ]);
    });

    it('two concurrent unbans: one 200, one 404, one lifted history row', async () => {
      const g = await createGroup();
      const userId = uid();
      await groupBan(g, { userId });
      const results = await Promise.all([groupUnbanReq(g, userId), groupUnbanReq(g, userId)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 404]);
      expect((await history(userId, `?groupId=${g}`)).items.map((e) => e.kind)).toEqual(['lifted', 'set']);
    });

    it('unban of a member who is not banned, a never-seen user, or twice is 404', async () => {
      const g = await createGroup();
      const active = uid();
      await joinReq(g, active);
      expectError(await groupUnbanReq(g, active), 404, 'not_found');
      expectError(await groupUnbanReq(g, uid('ghost')), 404, 'not_found');
      const userId = uid();
      await groupBan(g, { userId });
      expect((await groupUnbanReq(g, userId)).status).toBe(200);
      expectError(await groupUnbanReq(g, userId), 404, 'not_found');
    });

    it('a reason over 500 chars, a bad expiresAt or a missing userId is 400; unknown, other-game or soft-deleted group is 404', async () => {
      const g = await createGroup();
      expectError(await groupBanReq(g, { userId: uid(), reason: 'r'.repeat(501) }), 400, 'bad_request');
      expectError(await groupBanReq(g, { userId: uid(), expiresAt: 'soon' }), 400, 'bad_request');
      expectError(await groupBanReq(g, {}), 400, 'bad_request');
      expectError(await groupBanReq(randomUUID(), { userId: uid() }), 404, 'not_found');
      expectError(await groupBanReq(g, { userId: uid() }, otherAuth), 404, 'not_found');
      expectError(await groupUnbanReq(g, uid(), otherAuth), 404, 'not_found');
      const deleted = await createGroup();
      expect((await t.http.delete(`/v1/groups/${deleted}`).set(auth)).status).toBe(200);
      expectError(await groupBanReq(deleted, { userId: uid() }), 404, 'not_found');
    });

    it('a group ban does not ban game-wide, and other groups stay joinable', async () => {
      const g = await createGroup();
      const other = await createGroup();
      const userId = uid();
      await groupBan(g, { userId });
      expectError(await getBan(userId), 404, 'not_found');
      expect((await joinReq(other, userId)).status).toBe(201);
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('enforcement', () => {
    it('join: a game-banned user gets 403 banned and no membership', async () => {
      const g = await createGroup();
      const userId = uid();
      await ban({ userId, expiresAt: future(3_600_000) });
      expectError(await joinReq(g, userId), 403, 'banned');
      expect((await t.http.get(`/v1/users/${enc(userId)}/members`).set(auth)).body).toEqual([]);
    });

    it('join: a group-banned user gets 403 banned with the group message; a lapsed group ban lets them back in', async () => {
      const msgs = await banMessages();
      const g = await createGroup();
      const userId = uid();
      await joinReq(g, userId);
      await groupBan(g, { userId });
      const r = await joinReq(g, userId);
      expectError(r, 403, 'banned');
      expect(r.body.message).toBe(msgs.group);
      const lapsed = uid();
      const m = await groupBan(g, { userId: lapsed, expiresAt: past(1_000) });
      const back = await joinReq(g, lapsed);
      expect(back.status).toBe(201);
      expect(back.body).toMatchObject({ id: m.id, status: 'active', bannedUntil: null });
    });

    it('a user banned both ways gets the game message (game-wide is checked first) on join, accept and bulk invite', async () => {
      const msgs = await banMessages();
      const g = await createGroup();
      const userId = uid();
      await groupBan(g, { userId });
      await ban({ userId });
      const j = await joinReq(g, userId);
      expectError(j, 403, 'banned');
      expect(j.body.message).toBe(msgs.game);
      const a = await acceptReq(await invite(g), userId);
      expectError(a, 403, 'banned');
      expect(a.body.message).toBe(msgs.game);
      const b = await bulkReq(g, [{ userId }]);
      expect(b.status).toBe(200);
      expect(b.body.results).toEqual([{ index: 0, userId, error: { code: 'banned', message: msgs.game } }]);
      // once the game ban is lifted the group ban still applies, with its own message
      expect((await liftReq(userId)).status).toBe(204);
      const j2 = await joinReq(g, userId);
      expectError(j2, 403, 'banned');
      expect(j2.body.message).toBe(msgs.group);
    });

    it('invitation accept: game ban, group ban are 403 banned and the code stays unused; expired or lifted bans do not block', async () => {
      const msgs = await banMessages();
      const g = await createGroup({ visibility: 'invite-only' });
      const gameBanned = uid();
      await ban({ userId: gameBanned });
      const code1 = await invite(g, gameBanned);
      const r1 = await acceptReq(code1, gameBanned);
      expectError(r1, 403, 'banned');
      expect(r1.body.message).toBe(msgs.game);
      expect((await t.http.get(`/v1/invitations/${code1}`)).body.usedAt).toBeNull();

      const groupBanned = uid();
      await groupBan(g, { userId: groupBanned });
      const r2 = await acceptReq(await invite(g), groupBanned);
      expectError(r2, 403, 'banned');
      expect(r2.body.message).toBe(msgs.group);

      const expired = uid();
      await ban({ userId: expired, expiresAt: past(1_000) });
      expect((await acceptReq(await invite(g), expired)).status).toBe(201);

      expect((await liftReq(gameBanned)).status).toBe(204);
      expect((await acceptReq(code1, gameBanned)).status).toBe(201);

      expect((await groupUnbanReq(g, groupBanned)).status).toBe(200);
      expect((await acceptReq(await invite(g), groupBanned)).status).toBe(201);
    });

    it('join: an expired game ban is ignored; a lifted one no longer blocks', async () => {
      const g = await createGroup();
      const expired = uid();
      await ban({ userId: expired, expiresAt: past(60_000) });
      expect((await joinReq(g, expired)).status).toBe(201);
      const lifted = uid();
      await ban({ userId: lifted });
      expectError(await joinReq(g, lifted), 403, 'banned');
      expect((await liftReq(lifted)).status).toBe(204);
      expect((await joinReq(g, lifted)).status).toBe(201);
    });

    it('a game ban of another game does not block', async () => {
      const g = await createGroup();
      const userId = uid();
      await ban({ userId }, otherAuth);
      expect((await joinReq(g, userId)).status).toBe(201);
    });

    it('bulk invite: banned rows are per-row banned errors; expired and lifted bans do not block', async () => {
      const msgs = await banMessages();
      const g = await createGroup();
      const gameBanned = uid('gb');
      await ban({ userId: gameBanned });
      const groupBanned = uid('grb');
      await groupBan(g, { userId: groupBanned });
      const expired = uid('exp');
      await ban({ userId: expired, expiresAt: past(1_000) });
      const lifted = uid('lift');
      await ban({ userId: lifted });
      expect((await liftReq(lifted)).status).toBe(204);
      const fine = uid('ok');
      const r = await bulkReq(g, [{ userId: gameBanned }, { userId: fine }, { userId: groupBanned }, { userId: expired }, { userId: lifted }]);
      expect(r.status).toBe(200);
      const results = r.body.results as { index: number; userId: string; invitation?: { targetUserId: string }; error?: unknown }[];
      expect(results.map((x) => x.index)).toEqual([0, 1, 2, 3, 4]);
      expect(results[0]).toEqual({ index: 0, userId: gameBanned, error: { code: 'banned', message: msgs.game } });
      expect(results[2]).toEqual({ index: 2, userId: groupBanned, error: { code: 'banned', message: msgs.group } });
      for (const i of [1, 3, 4]) {
        expect(results[i].error).toBeUndefined();
        expect(results[i].invitation!.targetUserId).toBe(results[i].userId);
      }
      expect(await t.db.query('SELECT target_user_id FROM invitations WHERE group_id = $1', [g])).toHaveLength(3);
    });
  });
});
