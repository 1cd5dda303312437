import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { expectError } from '../helpers/errors';
import { groupAudits, groupOutbox } from '../helpers/group-rows';
import { joinOk, postGroup, postJoin, postLeave } from '../helpers/groups';
import { identityOf } from '../helpers/identities';
import { seqUid as uid } from '../helpers/ids';
import { journalAudit } from '../helpers/journal';
import { ISO_MS, UUID, type Member } from '../helpers/shapes';
import { authedGame, bearer, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * SPEC §3 Member status, §4 Groups (join / leave / kick), §4 Members, §7, §8; DECISIONS §7, §9,
 * §17, §22, §28. Bans are not built yet and are not exercised here.
 */

const PASSCODE = 'open-sesame';

describe('membership: join, leave, kick, rejoin and member reads', () => {
  let t: TestApp;
  let gameId: string;
  let auth: Record<string, string>;
  let other: { gameId: string; key: string };
  let otherAuth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'membership'));
    other = await authedGame(t, 'membership other');
    otherAuth = bearer(other.key);
  });
  afterAll(() => t.close());

  const createGroup = (body: Record<string, unknown> = {}, as = auth) =>
    postGroup<{ id: string; hasPasscode: boolean }>(t, as, { kind: 'guild', name: 'G', visibility: 'public', ...body });
  const join = (groupId: string, body: unknown, as = auth) => postJoin(t, as, groupId, body as object);
  const leave = (groupId: string, body: unknown, as = auth) => postLeave(t, as, groupId, body as object);
  const kick = (groupId: string, userId: string, body?: unknown, as = auth) => {
    const req = t.http.post(`/v1/groups/${groupId}/members/${encodeURIComponent(userId)}/kick`).set(as);
    return body === undefined ? req : req.send(body as object);
  };
  const joined = (groupId: string, userId = uid()) => joinOk<Member>(t, auth, groupId, userId);
  const svcIdOf = (userId: string, game = gameId) => identityOf(t, game, userId);
  const audits = (groupId: string, action: string) => groupAudits(t, groupId, action);
  const outbox = (groupId: string, type: string) => groupOutbox(t, groupId, type);
  const memberRows = (groupId: string) => t.db.query<{ id: string; status: string }>('SELECT id, status FROM members WHERE group_id = $1', [groupId]);
  async function memberCount(groupId: string): Promise<number> {
    const r = await t.http.get(`/v1/groups/${groupId}`).set(auth);
    expect(r.status).toBe(200);
    return r.body.memberCount;
  }
  /** memberCount, checked against the counter (the column and the deltas not yet folded into it) and the rows it counts. */
  async function checkedCount(groupId: string): Promise<number> {
    const [row] = await t.db.query<{ counter: number; actual: string }>(
      `SELECT g.active_member_count + coalesce((SELECT sum(d.delta)::int FROM group_member_count_deltas d WHERE d.group_id = g.id), 0) AS counter,
              (SELECT count(*) FROM members m WHERE m.group_id = g.id AND m.status = 'active') AS actual
       FROM groups g WHERE g.id = $1`,
      [groupId],
    );
    expect(row.counter).toBe(Number(row.actual));
    const wire = await memberCount(groupId);
    expect(wire).toBe(row.counter);
    return wire;
  }

  describe('POST /v1/groups/:id/join (public)', () => {
    it('creates an active member: 201 with the full Member body', async () => {
      const g = await createGroup();
      const userId = uid();
      const r = await join(g.id, { userId });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.stringMatching(UUID),
        groupId: g.id,
        userId,
        status: 'active',
        roles: [],
        roleGrants: [],
        metadata: {},
        notesPublic: null,
        notesPrivate: null,
        joinedAt: expect.stringMatching(ISO_MS),
        leftAt: null,
        bannedUntil: null,
        timedOutUntil: null,
      });
      expect(Math.abs(Date.parse(r.body.joinedAt) - Date.now())).toBeLessThan(60_000);
      expect(await checkedCount(g.id)).toBe(1);
    });

    it('writes audit member.joined: targetId the external id, actor the internal id, payload memberId and via public-join', async () => {
      const g = await createGroup();
      const userId = uid();
      const m = (await join(g.id, { userId })).body as Member;
      const svc = await svcIdOf(userId);
      expect(svc).toMatch(UUID);
      expect(svc).not.toBe(userId);
      const rows = await audits(g.id, 'member.joined');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        game_id: gameId,
        group_id: g.id,
        actor_user_id: svc,
        target_id: userId,
        payload: { memberId: m.id, via: 'public-join' },
      });
      expect(rows[0].payload).toEqual({ memberId: m.id, via: 'public-join' });
    });

    it('stages event member.joined with the Member nested under `member` (DECISIONS §9)', async () => {
      const g = await createGroup();
      const m = await joined(g.id);
      const events = await outbox(g.id, 'member.joined');
      expect(events).toHaveLength(1);
      expect(events[0].body).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        type: 'member.joined',
        gameId,
        groupId: g.id,
        occurredAt: expect.stringMatching(ISO_MS),
        member: m,
      });
    });

    it('an invite-only group is 403 permission_denied saying an invitation is required; nothing is created', async () => {
      const g = await createGroup({ visibility: 'invite-only' });
      const userId = uid();
      const r = await join(g.id, { userId });
      expectError(r, 403, 'permission_denied');
      expect(r.body.message).toMatch(/invit/i);
      expect(await memberRows(g.id)).toHaveLength(0);
      expect(await audits(g.id, 'member.joined')).toHaveLength(0);
    });

    it('a group created without visibility is invite-only and cannot be joined directly', async () => {
      const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'default vis' });
      expect(r.body.visibility).toBe('invite-only');
      expectError(await join(r.body.id, { userId: uid() }), 403, 'permission_denied');
    });

    it('a secret group answers 404 not_found', async () => {
      const g = await createGroup({ visibility: 'secret' });
      expectError(await join(g.id, { userId: uid() }), 404, 'not_found');
      expect(await memberRows(g.id)).toHaveLength(0);
    });

    it('an unknown, malformed, soft-deleted or other-game group answers 404', async () => {
      expectError(await join(randomUUID(), { userId: uid() }), 404, 'not_found');
      expectError(await join('not-a-uuid', { userId: uid() }), 404, 'not_found');
      const deleted = await createGroup();
      expect((await t.http.delete(`/v1/groups/${deleted.id}`).set(auth)).status).toBe(200);
      expectError(await join(deleted.id, { userId: uid() }), 404, 'not_found');
      const theirs = await createGroup({}, otherAuth);
      expectError(await join(theirs.id, { userId: uid() }), 404, 'not_found');
      expect(await memberRows(theirs.id)).toHaveLength(0);
    });

    it.each<[string, unknown]>([
      ['a missing userId', {}],
      ['an empty userId', { userId: '' }],
      ['a numeric userId', { userId: 42 }],
      ['a null userId', { userId: null }],
      ['an array userId', { userId: ['a'] }],
    ])('%s is 400 bad_request naming userId', async (_case, body) => {
      const g = await createGroup();
      const r = await join(g.id, body);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/userId/);
      expect(await memberRows(g.id)).toHaveLength(0);
    });

    it('no body at all is 400 naming userId', async () => {
      const g = await createGroup();
      const r = await t.http.post(`/v1/groups/${g.id}/join`).set(auth);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/userId/);
    });

    it('joining twice is 409 already_member, with no second audit entry or event', async () => {
      const g = await createGroup();
      const userId = uid();
      await joined(g.id, userId);
      const r = await join(g.id, { userId });
      expectError(r, 409, 'already_member');
      expect(await audits(g.id, 'member.joined')).toHaveLength(1);
      expect(await outbox(g.id, 'member.joined')).toHaveLength(1);
      expect(await checkedCount(g.id)).toBe(1);
    });

    it('needs an API key: 401 invalid_api_key', async () => {
      const g = await createGroup();
      const r = await t.http.post(`/v1/groups/${g.id}/join`).send({ userId: uid() });
      expectError(r, 401, 'invalid_api_key');
    });

    it('userId has no length cap (SPEC §8): a 4000-character id joins', async () => {
      const g = await createGroup();
      // random hex: incompressible, so it cannot hide inside a compressed index entry
      const userId = randomBytes(2000).toString('hex');
      expect(userId).toHaveLength(4000);
      const r = await join(g.id, { userId });
      expect(r.status).toBe(201);
      expect(r.body.userId).toBe(userId);
      expect(await svcIdOf(userId)).toMatch(UUID);
    });

    it('a user id longer than 100 characters works in path routes too (member read, PATCH, kick, memberships)', async () => {
      const g = await createGroup();
      const userId = `long-${'x'.repeat(200)}-${uid()}`;
      const m = await joined(g.id, userId);
      const got = await t.http.get(`/v1/groups/${g.id}/members/${encodeURIComponent(userId)}`).set(auth);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(m);
      const list = await t.http.get(`/v1/users/${encodeURIComponent(userId)}/members`).set(auth);
      expect(list.status).toBe(200);
      expect(list.body).toEqual([m]);
      const patched = await t.http.patch(`/v1/groups/${g.id}/members/${encodeURIComponent(userId)}`).set(auth).send({ notesPublic: 'long' });
      expect(patched.status).toBe(200);
      const kicked = await kick(g.id, userId, {});
      expect(kicked.status).toBe(200);
      expect(kicked.body.status).toBe('kicked');
    });

    it('an external id already known to the game reuses its internal user', async () => {
      const a = await createGroup();
      const b = await createGroup();
      const userId = uid();
      await joined(a.id, userId);
      const svc = await svcIdOf(userId);
      await joined(b.id, userId);
      expect(await svcIdOf(userId)).toBe(svc);
      const [row] = await audits(b.id, 'member.joined');
      expect(row.actor_user_id).toBe(svc);
    });
  });

  describe('passcode-protected join', () => {
    it('missing passcode is 403 passcode_required', async () => {
      const g = await createGroup({ passcode: PASSCODE });
      expect(g.hasPasscode).toBe(true);
      expectError(await join(g.id, { userId: uid() }), 403, 'passcode_required');
    });

    it('a wrong passcode is 403 passcode_invalid', async () => {
      const g = await createGroup({ passcode: PASSCODE });
      expectError(await join(g.id, { userId: uid(), passcode: 'wrong-one' }), 403, 'passcode_invalid');
    });

    it('the right passcode joins: 201', async () => {
      const g = await createGroup({ passcode: PASSCODE });
      const userId = uid();
      const r = await join(g.id, { userId, passcode: PASSCODE });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ userId, status: 'active', groupId: g.id });
      expect(r.text).not.toContain(PASSCODE);
      expect(await checkedCount(g.id)).toBe(1);
    });

    it('a wrong or missing passcode creates no identity and no member', async () => {
      const g = await createGroup({ passcode: PASSCODE });
      const wrong = uid('wrong');
      const missing = uid('missing');
      expectError(await join(g.id, { userId: wrong, passcode: 'nope-nope' }), 403, 'passcode_invalid');
      expectError(await join(g.id, { userId: missing }), 403, 'passcode_required');
      expect(await svcIdOf(wrong)).toBeNull();
      expect(await svcIdOf(missing)).toBeNull();
      expect(await memberRows(g.id)).toHaveLength(0);
      expect(await audits(g.id, 'member.joined')).toHaveLength(0);
    });

    it('a null passcode on a passcode group is refused (400 naming passcode, or 403 passcode_required), never a 500', async () => {
      const g = await createGroup({ passcode: PASSCODE });
      const userId = uid('nullpass');
      const r = await join(g.id, { userId, passcode: null });
      expect([400, 403]).toContain(r.status);
      if (r.status === 400) {
        expect(r.body.code).toBe('bad_request');
        expect(r.body.message).toMatch(/passcode/);
      } else {
        expect(r.body.code).toBe('passcode_required');
      }
      expect(await svcIdOf(userId)).toBeNull();
      expect(await memberRows(g.id)).toHaveLength(0);
    });

    it('a non-string passcode is 400 naming passcode', async () => {
      const g = await createGroup({ passcode: PASSCODE });
      const r = await join(g.id, { userId: uid(), passcode: 1234 });
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/passcode/);
    });

    it('a passcode is never asked of a group without one (a stray passcode is ignored)', async () => {
      const g = await createGroup();
      expect((await join(g.id, { userId: uid(), passcode: 'whatever' })).status).toBe(201);
    });

    it('5 attempts per (group, user) per minute, then 429 with Retry-After, even with the right passcode; the API limiter being off does not matter', async () => {
      // startTestApp runs with RATE_LIMIT_PER_MINUTE=0: the API limiter is off (DECISIONS §22).
      const g = await createGroup({ passcode: PASSCODE });
      const userId = uid('guesser');
      for (let i = 0; i < 5; i++) {
        expectError(await join(g.id, { userId, passcode: `wrong-${i}` }), 403, 'passcode_invalid');
      }
      const sixth = await join(g.id, { userId, passcode: PASSCODE });
      expectError(sixth, 429, 'rate_limit_exceeded');
      const retry = sixth.headers['retry-after'];
      expect(retry).toMatch(/^\d+$/);
      expect(Number(retry)).toBeGreaterThanOrEqual(1);
      expect(await svcIdOf(userId)).toBeNull();
      expect(await memberRows(g.id)).toHaveLength(0);
      // another user of the same group still has attempts of their own
      expect((await join(g.id, { userId: uid(), passcode: PASSCODE })).status).toBe(201);
      // and the same user in another group too
      const g2 = await createGroup({ passcode: PASSCODE });
      expect((await join(g2.id, { userId, passcode: PASSCODE })).status).toBe(201);
    });

    it('right passcodes count as attempts too: the 6th join attempt of one user is 429', async () => {
      const g = await createGroup({ passcode: PASSCODE });
      const userId = uid();
      expect((await join(g.id, { userId, passcode: PASSCODE })).status).toBe(201);
      for (let i = 0; i < 4; i++) expectError(await join(g.id, { userId, passcode: PASSCODE }), 409, 'already_member');
      expectError(await join(g.id, { userId, passcode: PASSCODE }), 429, 'rate_limit_exceeded');
    });

    it('30 attempts per group per minute across users, then 429 for any user', async () => {
      const g = await createGroup({ passcode: PASSCODE });
      // All at once: every attempt takes its token on arrival, before its (slow) passcode check.
      // The bucket refills one token every 2 s, so a machine too loaded to deliver the 40 within
      // 2 s may rightly serve one more per 2 s that the burst took.
      const users = Array.from({ length: 40 }, () => uid('crowd'));
      // Timed on the clock the limiter reads (Date.now, the wall clock): a step of it during the burst
      // refills the bucket as the server sees it, which the monotonic clock would not show.
      const started = Date.now();
      const crowd = await Promise.all(users.map((userId, i) => join(g.id, { userId, passcode: i % 2 ? PASSCODE : `bad-${i}` })));
      const refills = Math.floor((Date.now() - started) / 2_000);
      const served = crowd.filter((r) => r.status !== 429);
      const limited = crowd.filter((r) => r.status === 429);
      expect(served.length).toBeGreaterThanOrEqual(30);
      // Three more than the clock explains were seen on CI's three loaded workers, never here; the
      // bucket's arithmetic is token-bucket.spec.ts's, this holds that the group's limit bites.
      expect(served.length).toBeLessThanOrEqual(Math.min(30 + refills + 3, 39));
      for (const r of served) expect([201, 403]).toContain(r.status);
      expect(limited).toHaveLength(40 - served.length);
      for (const r of limited) {
        expectError(r, 429, 'rate_limit_exceeded');
        expect(r.headers['retry-after']).toMatch(/^\d+$/);
        expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      // a refused attempt creates no identity, whatever its passcode
      const refusedRight = users.filter((_, i) => i % 2 && crowd[i].status === 429);
      for (const userId of refusedRight) expect(await svcIdOf(userId)).toBeNull();
      // the group bucket is per group: another group is unaffected
      const g2 = await createGroup({ passcode: PASSCODE });
      expect((await join(g2.id, { userId: uid('fresh'), passcode: PASSCODE })).status).toBe(201);
    });

    it('the ordinary API limiter is off in this app: many plain requests pass', async () => {
      const g = await createGroup();
      const rs = await Promise.all(Array.from({ length: 40 }, () => t.http.get(`/v1/groups/${g.id}`).set(auth)));
      expect(rs.every((r) => r.status === 200)).toBe(true);
    });
  });

  describe('races', () => {
    it('10 concurrent joins of one user: one 201, nine 409 already_member, one row, one audit entry', async () => {
      const g = await createGroup();
      const userId = uid('racer');
      const rs = await Promise.all(Array.from({ length: 10 }, () => join(g.id, { userId })));
      const statuses = rs.map((r) => r.status).sort();
      expect(statuses).toEqual([201, ...Array(9).fill(409)]);
      for (const r of rs.filter((x) => x.status === 409)) expect(r.body.code).toBe('already_member');
      expect(await memberRows(g.id)).toHaveLength(1);
      expect(await checkedCount(g.id)).toBe(1);
      expect(await audits(g.id, 'member.joined')).toHaveLength(1);
      expect(await outbox(g.id, 'member.joined')).toHaveLength(1);
      expect(await t.db.query('SELECT 1 FROM user_identities WHERE game_id = $1 AND external_id = $2', [gameId, userId])).toHaveLength(1);
    });

    it('a join whose snapshot saw no row, meeting the row of a transaction that commits meanwhile, answers 409 already_member (the change runs again)', async () => {
      const g = await createGroup();
      const userId = uid('late');
      await joined((await createGroup()).id, userId);
      const holder = new Client({ connectionString: t.db.url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`INSERT INTO members (id, group_id, user_id, external_user_id, status) VALUES ($1, $2, $3, $4, 'active')`, [
          randomUUID(),
          g.id,
          await svcIdOf(userId),
          userId,
        ]);
        // then() sends the request now (supertest sends on then), while the row's transaction is open.
        const answer = join(g.id, { userId }).then((r) => r);
        // The join's insert waits for the held row's transaction on the unique key.
        const waiting = async () =>
          (await holder.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows[0].n > 0;
        for (const until = Date.now() + 10_000; !(await waiting()) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
        expect(await waiting()).toBe(true);
        await holder.query('COMMIT');
        const r = await answer;
        expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: 'already_member' });
      } finally {
        await holder.end();
      }
      expect(await memberRows(g.id)).toHaveLength(1);
      expect(await checkedCount(g.id)).toBe(1);
      expect(await audits(g.id, 'member.joined')).toHaveLength(0);
    });

    it('a new user joining 10 groups at once: all 201, one identity, one internal user', async () => {
      const groups = await Promise.all(Array.from({ length: 10 }, () => createGroup()));
      const userId = uid('everywhere');
      const rs = await Promise.all(groups.map((g) => join(g.id, { userId })));
      expect(rs.map((r) => r.status)).toEqual(Array(10).fill(201));
      const ids = await t.db.query<{ user_id: string }>('SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2', [gameId, userId]);
      expect(ids).toHaveLength(1);
      const actors = await t.db.query<{ actor_user_id: string }>(
        `SELECT DISTINCT actor_user_id FROM ${journalAudit()} WHERE action = 'member.joined' AND target_id = $1`,
        [userId],
      );
      expect(actors).toEqual([{ actor_user_id: ids[0].user_id }]);
      const memberUsers = await t.db.query<{ user_id: string }>('SELECT DISTINCT user_id FROM members WHERE external_user_id = $1', [userId]);
      expect(memberUsers).toEqual([{ user_id: ids[0].user_id }]);
    });

    it('20 concurrent joins of different users: memberCount 20 and the counter matches the rows', async () => {
      const g = await createGroup();
      const rs = await Promise.all(Array.from({ length: 20 }, () => join(g.id, { userId: uid('crowd') })));
      expect(rs.map((r) => r.status)).toEqual(Array(20).fill(201));
      expect(await checkedCount(g.id)).toBe(20);
      expect(await audits(g.id, 'member.joined')).toHaveLength(20);
    });
  });

  describe('POST /v1/groups/:id/leave', () => {
    it('an active member leaves: 200 post-state (left, leftAt set), audit member.left, memberCount down', async () => {
      const g = await createGroup();
      const userId = uid();
      const m = await joined(g.id, userId);
      const r = await leave(g.id, { userId });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ ...m, status: 'left', leftAt: expect.stringMatching(ISO_MS) });
      expect(Date.parse(r.body.leftAt)).toBeGreaterThanOrEqual(Date.parse(m.joinedAt));
      const rows = await audits(g.id, 'member.left');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ target_id: userId, payload: { memberId: m.id, reason: 'left' } });
      expect(rows[0].payload).toEqual({ memberId: m.id, reason: 'left' });
      expect(await checkedCount(g.id)).toBe(0);
      const got = await t.http.get(`/v1/groups/${g.id}/members/${userId}`).set(auth);
      expect(got.body).toEqual(r.body);
    });

    it('a second leave returns the left member unchanged, with no audit entry', async () => {
      const g = await createGroup();
      const userId = uid();
      await joined(g.id, userId);
      const first = await leave(g.id, { userId });
      const second = await leave(g.id, { userId });
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(await audits(g.id, 'member.left')).toHaveLength(1);
    });

    it('leave of a kicked member returns it unchanged (kicked), no member.left entry', async () => {
      const g = await createGroup();
      const userId = uid();
      await joined(g.id, userId);
      const kicked = await kick(g.id, userId, {});
      const r = await leave(g.id, { userId });
      expect(r.status).toBe(200);
      expect(r.body).toEqual(kicked.body);
      expect(r.body.status).toBe('kicked');
      expect(await audits(g.id, 'member.left')).toHaveLength(0);
    });

    it('a never-seen user, or a known user without a row in this group, is 404 not_found', async () => {
      const g = await createGroup();
      const never = uid('never');
      expectError(await leave(g.id, { userId: never }), 404, 'not_found');
      expect(await svcIdOf(never)).toBeNull();
      const elsewhere = await createGroup();
      const known = uid('known');
      await joined(elsewhere.id, known);
      expectError(await leave(g.id, { userId: known }), 404, 'not_found');
    });

    it('an unknown group is 404; a missing or empty userId is 400 naming userId', async () => {
      expectError(await leave(randomUUID(), { userId: uid() }), 404, 'not_found');
      const g = await createGroup();
      for (const body of [{}, { userId: '' }, { userId: 7 }]) {
        const r = await leave(g.id, body);
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toMatch(/userId/);
      }
    });

    it('stages event member.left with the member nested', async () => {
      const g = await createGroup();
      const userId = uid();
      await joined(g.id, userId);
      const r = await leave(g.id, { userId });
      const events = await outbox(g.id, 'member.left');
      expect(events).toHaveLength(1);
      expect(events[0].body).toMatchObject({ type: 'member.left', gameId, groupId: g.id, member: r.body });
    });
  });

  describe('POST /v1/groups/:id/members/:userId/kick', () => {
    it('kicks with no body, with {} and with an empty application/json body (DECISIONS §17)', async () => {
      const g = await createGroup();
      const [a, b, c] = [uid(), uid(), uid()];
      for (const u of [a, b, c]) await joined(g.id, u);
      const noBody = await kick(g.id, a);
      const emptyObject = await kick(g.id, b, {});
      const emptyJson = await t.http.post(`/v1/groups/${g.id}/members/${c}/kick`).set(auth).set('content-type', 'application/json').send('');
      for (const [r, u] of [
        [noBody, a],
        [emptyObject, b],
        [emptyJson, c],
      ] as const) {
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ userId: u, status: 'kicked', leftAt: expect.stringMatching(ISO_MS) });
      }
      const rows = await audits(g.id, 'member.kicked');
      expect(rows).toHaveLength(3);
      for (const row of rows) expect(row.payload.reason ?? null).toBeNull();
      expect(await checkedCount(g.id)).toBe(0);
    });

    it('returns the post-state Member (same shape as leave) and audits member.kicked with the reason', async () => {
      const g = await createGroup();
      const userId = uid();
      const m = await joined(g.id, userId);
      const reason = 'r'.repeat(500);
      const r = await kick(g.id, userId, { reason });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ ...m, status: 'kicked', leftAt: expect.stringMatching(ISO_MS) });
      const rows = await audits(g.id, 'member.kicked');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ target_id: userId, payload: { memberId: m.id, reason } });
      const events = await outbox(g.id, 'member.kicked');
      expect(events).toHaveLength(1);
      expect(events[0].body).toMatchObject({ type: 'member.kicked', groupId: g.id, member: r.body });
    });

    it('a 501-character reason is 400 naming reason, and the member stays active', async () => {
      const g = await createGroup();
      const userId = uid();
      await joined(g.id, userId);
      const r = await kick(g.id, userId, { reason: 'r'.repeat(501) });
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/reason/);
      expect((await t.http.get(`/v1/groups/${g.id}/members/${userId}`).set(auth)).body.status).toBe('active');
      expect(await audits(g.id, 'member.kicked')).toHaveLength(0);
    });

    it('a null reason is accepted and recorded as null', async () => {
      const g = await createGroup();
      const userId = uid();
      await joined(g.id, userId);
      const r = await kick(g.id, userId, { reason: null });
      expect(r.status).toBe(200);
      const [row] = await audits(g.id, 'member.kicked');
      expect(row.payload.reason).toBeNull();
    });

    it('is idempotent for left and kicked members: unchanged, no audit entry', async () => {
      const g = await createGroup();
      const l = uid();
      const k = uid();
      await joined(g.id, l);
      await joined(g.id, k);
      const left = await leave(g.id, { userId: l });
      const kicked = await kick(g.id, k, { reason: 'first' });
      const again = await kick(g.id, k, { reason: 'second' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(kicked.body);
      const leftKick = await kick(g.id, l, {});
      expect(leftKick.status).toBe(200);
      expect(leftKick.body).toEqual(left.body);
      expect(leftKick.body.status).toBe('left');
      const rows = await audits(g.id, 'member.kicked');
      expect(rows).toHaveLength(1);
      expect(rows[0].payload.reason).toBe('first');
    });

    it('an unknown user or group is 404 not_found', async () => {
      const g = await createGroup();
      expectError(await kick(g.id, uid('ghost'), {}), 404, 'not_found');
      expectError(await kick(randomUUID(), uid(), {}), 404, 'not_found');
      const known = uid();
      await joined((await createGroup()).id, known);
      expectError(await kick(g.id, known, {}), 404, 'not_found');
    });

    it('path user ids are URL-decoded', async () => {
      const g = await createGroup();
      const userId = `weird id/${uid()}@x`;
      await joined(g.id, userId);
      const r = await kick(g.id, userId, {});
      expect(r.status).toBe(200);
      expect(r.body.userId).toBe(userId);
    });
  });

  describe('rejoin', () => {
    it('after leaving: same row and id, joinedAt kept, leftAt cleared, active, memberCount back up, a new member.joined', async () => {
      const g = await createGroup();
      const userId = uid();
      const first = await joined(g.id, userId);
      await new Promise((r) => setTimeout(r, 10));
      await leave(g.id, { userId });
      expect(await checkedCount(g.id)).toBe(0);
      const r = await join(g.id, { userId });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({ ...first, status: 'active', leftAt: null });
      expect(r.body.id).toBe(first.id);
      expect(r.body.joinedAt).toBe(first.joinedAt);
      expect(await memberRows(g.id)).toHaveLength(1);
      expect(await checkedCount(g.id)).toBe(1);
      const joins = await audits(g.id, 'member.joined');
      expect(joins).toHaveLength(2);
      expect(joins[1].payload).toEqual({ memberId: first.id, via: 'public-join' });
    });

    it('after being kicked: the same row comes back active', async () => {
      const g = await createGroup();
      const userId = uid();
      const first = await joined(g.id, userId);
      await kick(g.id, userId, { reason: 'bye' });
      const r = await join(g.id, { userId });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ id: first.id, joinedAt: first.joinedAt, leftAt: null, status: 'active' });
      expect(await memberRows(g.id)).toEqual([{ id: first.id, status: 'active' }]);
      expect(await checkedCount(g.id)).toBe(1);
    });

    it('metadata and notes survive a leave and rejoin', async () => {
      const g = await createGroup();
      const userId = uid();
      await joined(g.id, userId);
      await t.http.patch(`/v1/groups/${g.id}/members/${userId}`).set(auth).send({ metadata: { rank: 3 }, notesPublic: 'hi' });
      await leave(g.id, { userId });
      const r = await join(g.id, { userId });
      expect(r.body).toMatchObject({ metadata: { rank: 3 }, notesPublic: 'hi' });
    });
  });

  describe('GET /v1/groups/:id/members', () => {
    let g: { id: string };
    let a: Member;
    let b: Member;
    let c: Member;
    let d: Member;
    beforeAll(async () => {
      g = await createGroup();
      a = await joined(g.id, uid('a'));
      await new Promise((r) => setTimeout(r, 5));
      b = await joined(g.id, uid('b'));
      await new Promise((r) => setTimeout(r, 5));
      c = await joined(g.id, uid('c'));
      await new Promise((r) => setTimeout(r, 5));
      d = await joined(g.id, uid('d'));
      b = (await leave(g.id, { userId: b.userId })).body;
      c = (await kick(g.id, c.userId, {})).body;
    });
    const list = (query: string, groupId = g.id, as = auth) => t.http.get(`/v1/groups/${groupId}/members${query}`).set(as);

    it('is a Page of every status by default, joinedAt descending', async () => {
      const r = await list('');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ items: [d, c, b, a], nextCursor: null });
      expect((await list('?status=all')).body).toEqual(r.body);
    });

    it.each([
      ['active', () => [d, a]],
      ['left', () => [b]],
      ['kicked', () => [c]],
      ['invited', () => []],
      ['banned', () => []],
    ] as [string, () => Member[]][])('status=%s filters', async (status, expected) => {
      const r = await list(`?status=${status}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ items: expected(), nextCursor: null });
    });

    it('an unknown status is 400 naming status', async () => {
      for (const s of ['banana', 'ACTIVE', '']) {
        const r = await list(`?status=${s}`);
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toMatch(/status/);
      }
    });

    it('a missing, malformed, soft-deleted or other-game group is 404, even with a bad limit or cursor', async () => {
      const deleted = await createGroup();
      expect((await t.http.delete(`/v1/groups/${deleted.id}`).set(auth)).status).toBe(200);
      const theirs = await createGroup({}, otherAuth);
      for (const id of [randomUUID(), 'not-a-uuid', deleted.id, theirs.id]) {
        for (const query of ['', '?limit=0', '?cursor=garbage', '?status=left']) expectError(await list(query, id), 404, 'not_found');
      }
    });

    it('a live group without members in the status asked answers an empty page', async () => {
      const empty = await createGroup();
      expect((await list('', empty.id)).body).toEqual({ items: [], nextCursor: null });
      expect((await list('?status=banned', g.id)).body).toEqual({ items: [], nextCursor: null });
    });

    it('limit is 1..cap; 0, 101, abc, 1.5 are 400 naming limit', async () => {
      expect((await list('?limit=1')).body.items).toHaveLength(1);
      expect((await list('?limit=100')).status).toBe(200);
      for (const bad of ['0', '101', 'abc', '1.5', '-1']) {
        const r = await list(`?limit=${bad}`);
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toMatch(/limit/);
      }
    });

    it('walks with limit and cursor, exactly once each, ending with nextCursor null', async () => {
      const seen: Member[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await list(`?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(r.status).toBe(200);
        seen.push(...r.body.items);
        cursor = r.body.nextCursor;
        pages++;
      } while (cursor && pages < 10);
      expect(seen).toEqual([d, c, b, a]);
      expect(pages).toBe(4);
    });

    it('the status filter paginates too', async () => {
      const p1 = await list('?status=active&limit=1');
      expect(p1.body.items).toEqual([d]);
      expect(p1.body.nextCursor).toEqual(expect.any(String));
      const p2 = await list(`?status=active&limit=1&cursor=${encodeURIComponent(p1.body.nextCursor)}`);
      expect(p2.body).toEqual({ items: [a], nextCursor: null });
    });

    it('ties on joinedAt are broken by id descending, and the walk is still exact', async () => {
      const tie = await createGroup();
      const ms: Member[] = [];
      for (let i = 0; i < 5; i++) ms.push(await joined(tie.id, uid('tie')));
      await t.db.query(`UPDATE members SET joined_at = '2030-01-01T00:00:00.123Z' WHERE group_id = $1`, [tie.id]);
      const expectedIds = ms.map((m) => m.id).sort().reverse();
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, tie.id);
        expect(r.status).toBe(200);
        seen.push(...r.body.items.map((m: Member) => m.id));
        for (const m of r.body.items) expect(m.joinedAt).toBe('2030-01-01T00:00:00.123Z');
        cursor = r.body.nextCursor;
        pages++;
      } while (cursor && pages < 10);
      expect(seen).toEqual(expectedIds);
      expect(pages).toBe(3);
    });

    it('a cursor from another group, or garbage, is 400', async () => {
      const otherGroup = await createGroup();
      await joined(otherGroup.id);
      await joined(otherGroup.id);
      const foreign = (await list('?limit=1', otherGroup.id)).body.nextCursor;
      expect(foreign).toEqual(expect.any(String));
      expectError(await list(`?limit=1&cursor=${encodeURIComponent(foreign)}`), 400, 'bad_request');
      expectError(await list('?cursor=not-a-cursor!'), 400, 'bad_request');
      expectError(await list('?cursor=Zm9vYmFy'), 400, 'bad_request');
    });

    it('an unknown, soft-deleted or other-game group is 404; no key is 401', async () => {
      expectError(await list('', randomUUID()), 404, 'not_found');
      expectError(await list('', 'nope'), 404, 'not_found');
      expectError(await list('', g.id, otherAuth), 404, 'not_found');
      const gone = await createGroup();
      await joined(gone.id);
      await t.http.delete(`/v1/groups/${gone.id}`).set(auth);
      expectError(await list('', gone.id), 404, 'not_found');
      expectError(await t.http.get(`/v1/groups/${g.id}/members`), 401, 'invalid_api_key');
    });
  });

  describe('GET /v1/groups/:id/members/:userId', () => {
    it('returns the member whatever its status', async () => {
      const g = await createGroup();
      const userId = uid();
      const m = await joined(g.id, userId);
      const active = await t.http.get(`/v1/groups/${g.id}/members/${userId}`).set(auth);
      expect(active.status).toBe(200);
      expect(active.body).toEqual(m);
      const left = (await leave(g.id, { userId })).body;
      const after = await t.http.get(`/v1/groups/${g.id}/members/${userId}`).set(auth);
      expect(after.body).toEqual(left);
      expect(after.body.status).toBe('left');
    });

    it('unknown user, known user of another group, unknown group, other game: 404; read creates no identity', async () => {
      const g = await createGroup();
      const ghost = uid('ghost');
      expectError(await t.http.get(`/v1/groups/${g.id}/members/${ghost}`).set(auth), 404, 'not_found');
      expect(await svcIdOf(ghost)).toBeNull();
      const known = uid();
      await joined((await createGroup()).id, known);
      expectError(await t.http.get(`/v1/groups/${g.id}/members/${known}`).set(auth), 404, 'not_found');
      expectError(await t.http.get(`/v1/groups/${randomUUID()}/members/${known}`).set(auth), 404, 'not_found');
      const m = await joined(g.id);
      expectError(await t.http.get(`/v1/groups/${g.id}/members/${m.userId}`).set(otherAuth), 404, 'not_found');
    });
  });

  describe('PATCH /v1/groups/:id/members/:userId (DECISIONS §7)', () => {
    const patch = (groupId: string, userId: string, body?: unknown) => {
      const req = t.http.patch(`/v1/groups/${groupId}/members/${encodeURIComponent(userId)}`).set(auth);
      return body === undefined ? req : req.send(body as object);
    };

    it('replaces metadata wholesale (no merge)', async () => {
      const g = await createGroup();
      const m = await joined(g.id);
      const r1 = await patch(g.id, m.userId, { metadata: { a: 1, nested: { x: true } } });
      expect(r1.status).toBe(200);
      expect(r1.body).toEqual({ ...m, metadata: { a: 1, nested: { x: true } } });
      const r2 = await patch(g.id, m.userId, { metadata: { b: 2 } });
      expect(r2.body.metadata).toEqual({ b: 2 });
      expect((await t.http.get(`/v1/groups/${g.id}/members/${m.userId}`).set(auth)).body.metadata).toEqual({ b: 2 });
      const r3 = await patch(g.id, m.userId, { metadata: {} });
      expect(r3.body.metadata).toEqual({});
    });

    it('sets notes up to 5000 characters and null clears them', async () => {
      const g = await createGroup();
      const m = await joined(g.id);
      const big = 'n'.repeat(5000);
      const r = await patch(g.id, m.userId, { notesPublic: big, notesPrivate: 'secret' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ notesPublic: big, notesPrivate: 'secret' });
      const cleared = await patch(g.id, m.userId, { notesPublic: null, notesPrivate: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toMatchObject({ notesPublic: null, notesPrivate: null });
      const [row] = await t.db.query<{ notes_public: string | null; notes_private: string | null }>(
        'SELECT notes_public, notes_private FROM members WHERE id = $1',
        [m.id],
      );
      expect(row).toEqual({ notes_public: null, notes_private: null });
    });

    it.each([
      ['notesPublic', { notesPublic: 'x'.repeat(5001) }],
      ['notesPrivate', { notesPrivate: 'x'.repeat(5001) }],
      ['notesPublic', { notesPublic: 12 }],
      ['metadata', { metadata: [1, 2] }],
      ['metadata', { metadata: 'text' }],
      ['metadata', { metadata: null }],
    ] as [string, Record<string, unknown>][])('rejects a bad %s with 400 naming it, changing nothing', async (field, body) => {
      const g = await createGroup();
      const m = await joined(g.id);
      const r = await patch(g.id, m.userId, body);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(new RegExp(field));
      expect((await t.http.get(`/v1/groups/${g.id}/members/${m.userId}`).set(auth)).body).toEqual(m);
      expect(await audits(g.id, 'member.updated')).toHaveLength(0);
    });

    it('an empty body, {} or only unknown fields is 400', async () => {
      const g = await createGroup();
      const m = await joined(g.id);
      expectError(await patch(g.id, m.userId), 400, 'bad_request');
      expectError(await patch(g.id, m.userId, {}), 400, 'bad_request');
      expectError(await patch(g.id, m.userId, { status: 'kicked' }), 400, 'bad_request');
      expect((await t.http.get(`/v1/groups/${g.id}/members/${m.userId}`).set(auth)).body.status).toBe('active');
    });

    it('audits member.updated with before/after of the changed keys only, and stages member.updated', async () => {
      const g = await createGroup();
      const m = await joined(g.id);
      await patch(g.id, m.userId, { notesPrivate: 'kept' });
      const r = await patch(g.id, m.userId, { notesPublic: 'hello', notesPrivate: 'kept' });
      expect(r.status).toBe(200);
      const rows = await audits(g.id, 'member.updated');
      expect(rows).toHaveLength(2);
      expect(rows[1]).toMatchObject({ target_id: m.userId, group_id: g.id });
      expect(rows[1].payload.before).toEqual({ notesPublic: null });
      expect(rows[1].payload.after).toEqual({ notesPublic: 'hello' });
      const events = await outbox(g.id, 'member.updated');
      expect(events).toHaveLength(2);
      expect(events[1].body).toMatchObject({ type: 'member.updated', gameId, groupId: g.id, member: r.body });
    });

    it('a no-op (same notes) answers 200 with the member and writes no audit entry and no event', async () => {
      const g = await createGroup();
      const m = await joined(g.id);
      const first = await patch(g.id, m.userId, { notesPublic: 'same' });
      const again = await patch(g.id, m.userId, { notesPublic: 'same' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      const nulls = await patch(g.id, m.userId, { notesPrivate: null });
      expect(nulls.status).toBe(200);
      expect(await audits(g.id, 'member.updated')).toHaveLength(1);
      expect(await outbox(g.id, 'member.updated')).toHaveLength(1);
    });

    it('an unknown user or group is 404', async () => {
      const g = await createGroup();
      expectError(await patch(g.id, uid('ghost'), { notesPublic: 'x' }), 404, 'not_found');
      expectError(await patch(randomUUID(), uid(), { notesPublic: 'x' }), 404, 'not_found');
    });
  });

  describe('GET /v1/members/:id', () => {
    it('returns the member by id, whatever its status', async () => {
      const g = await createGroup();
      const m = await joined(g.id);
      const r = await t.http.get(`/v1/members/${m.id}`).set(auth);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(m);
      const kicked = (await kick(g.id, m.userId, {})).body;
      expect((await t.http.get(`/v1/members/${m.id}`).set(auth)).body).toEqual(kicked);
    });

    it('another game, unknown, malformed, soft-deleted group: 404; no key 401', async () => {
      const g = await createGroup();
      const m = await joined(g.id);
      expectError(await t.http.get(`/v1/members/${m.id}`).set(otherAuth), 404, 'not_found');
      expectError(await t.http.get(`/v1/members/${randomUUID()}`).set(auth), 404, 'not_found');
      expectError(await t.http.get('/v1/members/not-an-id').set(auth), 404, 'not_found');
      expectError(await t.http.get(`/v1/members/${m.id}`), 401, 'invalid_api_key');
      await t.http.delete(`/v1/groups/${g.id}`).set(auth);
      expectError(await t.http.get(`/v1/members/${m.id}`).set(auth), 404, 'not_found');
    });
  });

  describe('GET /v1/users/:userId/members', () => {
    it('a bare array of the memberships, joinedAt descending, any status, only the calling game, live groups only', async () => {
      const userId = uid('multi');
      const g1 = await createGroup();
      const g2 = await createGroup();
      const g3 = await createGroup();
      const gDeleted = await createGroup();
      const m1 = await joined(g1.id, userId);
      await new Promise((r) => setTimeout(r, 5));
      const m2 = await joined(g2.id, userId);
      await new Promise((r) => setTimeout(r, 5));
      await joined(gDeleted.id, userId);
      await new Promise((r) => setTimeout(r, 5));
      await joined(g3.id, userId);
      const m3 = (await leave(g3.id, { userId })).body;
      await t.http.delete(`/v1/groups/${gDeleted.id}`).set(auth);
      // the same external id in another game
      const theirs = await createGroup({}, otherAuth);
      expect((await join(theirs.id, { userId }, otherAuth)).status).toBe(201);

      const r = await t.http.get(`/v1/users/${userId}/members`).set(auth);
      expect(r.status).toBe(200);
      expect(Array.isArray(r.body)).toBe(true);
      expect(r.body).toEqual([m3, m2, m1]);
      const mine = await t.http.get(`/v1/users/${userId}/members`).set(otherAuth);
      expect(mine.body).toHaveLength(1);
      expect(mine.body[0].groupId).toBe(theirs.id);
    });

    it('an unknown user gives [] (not 404) and creates no identity', async () => {
      const ghost = uid('ghost');
      const r = await t.http.get(`/v1/users/${ghost}/members`).set(auth);
      expect(r.status).toBe(200);
      expect(r.body).toEqual([]);
      expect(await svcIdOf(ghost)).toBeNull();
    });

    it('gameId equal to the calling game is fine; any other is 400 naming gameId', async () => {
      const userId = uid();
      await joined((await createGroup()).id, userId);
      const ok = await t.http.get(`/v1/users/${userId}/members?gameId=${gameId}`).set(auth);
      expect(ok.status).toBe(200);
      expect(ok.body).toHaveLength(1);
      for (const bad of [other.gameId, randomUUID(), 'x']) {
        const r = await t.http.get(`/v1/users/${userId}/members?gameId=${bad}`).set(auth);
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toMatch(/gameId/);
      }
    });

    it('returns at most 1000 rows, the newest first', async () => {
      const userId = uid('collector');
      const first = await createGroup();
      const newest = await joined(first.id, userId);
      const svc = await svcIdOf(userId);
      await t.db.query(
        `WITH g AS (
           INSERT INTO groups (id, game_id, kind, name, visibility)
           SELECT gen_random_uuid(), $1, 'bulk', 'bulk ' || i, 'public' FROM generate_series(1, 1000) i
           RETURNING id)
         INSERT INTO members (id, group_id, user_id, external_user_id, status, joined_at)
         SELECT gen_random_uuid(), g.id, $2, $3, 'active', now() - interval '1 day' FROM g`,
        [gameId, svc, userId],
      );
      const r = await t.http.get(`/v1/users/${userId}/members`).set(auth);
      expect(r.status).toBe(200);
      expect(r.body).toHaveLength(1000);
      expect(r.body[0]).toEqual(newest);
    });
  });
});
