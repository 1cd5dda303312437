import { GrantSweeper } from '../../src/permissions/grant-sweeper';
import { PermissionCache } from '../../src/permissions/permission-cache';
import { expectError } from '../helpers/errors';
import { seqUid as uid } from '../helpers/ids';
import { journalAudit, journalEvents } from '../helpers/journal';
import { permissionApi, untilPast } from '../helpers/permissions';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X8: the batch check, a member's effective set, the groups allowing a key, the member
 * list's permission filter, and grants that expire (exact at expiry, cache included; removed by
 * the sweeper with an audit entry and event; granted again replaces the expiry; roleGrants).
 */
describe('X8: asking the permission model', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let gameId: string;
  let otherAuth: Record<string, string>;
  let api: ReturnType<typeof permissionApi>;
  let other: ReturnType<typeof permissionApi>;
  const enc = encodeURIComponent;
  const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

  beforeAll(async () => {
    t = await startTestApp();
    ({ auth, gameId } = await authedGame(t, 'x8'));
    ({ auth: otherAuth } = await authedGame(t, 'x8 other'));
    api = permissionApi(t, auth);
    other = permissionApi(t, otherAuth);
  });
  afterAll(() => t.close());

  /** A group with roles `low` (priority 1, grants a, b) and `high` (priority 5, grants b, c); a member holding both. */
  async function arranged() {
    const groupId = await api.group();
    const low = await api.role(groupId, 'low', 1);
    const high = await api.role(groupId, 'high', 5);
    for (const k of ['a', 'b']) await api.grant(low, k);
    for (const k of ['b', 'c']) await api.grant(high, k);
    const userId = uid();
    await api.join(groupId, userId);
    await api.assign(groupId, userId, low);
    await api.assign(groupId, userId, high);
    return { groupId, low, high, userId };
  }

  describe('POST /v1/permissions/check-batch', () => {
    it('answers each check in order as the single check does, cached or not, with not_found in place of a missing group', async () => {
      const { groupId, high, userId } = await arranged();
      await api.override(groupId, userId, 'd', false);
      const deleted = await api.group();
      expect((await t.http.delete(`/v1/groups/${deleted}`).set(auth)).status).toBe(200);
      const foreign = await other.group();
      const checks = [
        { userId, groupId, permission: 'b' },
        { userId, groupId, permission: 'd' },
        { userId, groupId: deleted, permission: 'a' },
        { userId: 'nobody', groupId, permission: 'a' },
        { userId, groupId: foreign, permission: 'a' },
        { userId, groupId: 'not-a-uuid', permission: 'a' },
        { userId, groupId, permission: 'zzz' },
      ];
      await api.check(userId, groupId, 'b'); // half cached, half not
      const results = await api.batch(checks);
      const notFound = { error: { code: 'not_found', message: 'group not found' } };
      expect(results).toEqual([
        { allowed: true, source: 'role', viaRoleId: high },
        { allowed: false, source: 'override' },
        notFound,
        { allowed: false, source: 'none' },
        notFound,
        notFound,
        { allowed: false, source: 'default' },
      ]);
      for (const [i, c] of checks.entries()) {
        if ('error' in results[i]) continue;
        expect(await api.check(c.userId, c.groupId, c.permission)).toEqual(results[i]);
      }
    });

    it("asks the cache once per member yet counts every check in the hit ratio, and a member's repeated checks agree", async () => {
      const { groupId, userId } = await arranged();
      await api.check(userId, groupId, 'b');
      const cache = t.app.get(PermissionCache);
      const before = { ...cache.lookups };
      const keys = ['a', 'b', 'c', 'd', 'b', 'a'];
      const results = await api.batch(keys.map((permission) => ({ userId, groupId, permission })));
      expect({ hit: cache.lookups.hit - before.hit, miss: cache.lookups.miss - before.miss }).toEqual({ hit: keys.length, miss: 0 });
      expect(results[4]).toEqual(results[1]);
      expect(results[5]).toEqual(results[0]);
      for (const [i, permission] of keys.entries()) expect(await api.check(userId, groupId, permission)).toEqual(results[i]);
    });

    it("answers one user asked in several groups from each group's own grants, and is sent as JSON with its request id", async () => {
      const { groupId: first, userId } = await arranged();
      const second = await api.group();
      const only = await api.role(second, 'only', 1);
      await api.grant(only, 'z');
      await api.join(second, userId);
      await api.assign(second, userId, only);
      const third = await api.group();
      await api.check(userId, first, 'a'); // one of the three cached
      const checks = [first, second, third, second, first].map((groupId) => ({ userId, groupId, permission: 'z' }));
      checks.push({ userId, groupId: first, permission: 'a' });
      const r = await t.http.post('/v1/permissions/check-batch').set(auth).send({ checks });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.headers['x-request-id']).toEqual(expect.any(String));
      const results = (r.body as { results: Record<string, unknown>[] }).results;
      expect(r.text).toBe(JSON.stringify({ results }));
      expect(results).toEqual([
        { allowed: false, source: 'default' },
        { allowed: true, source: 'role', viaRoleId: only },
        { allowed: false, source: 'none' },
        { allowed: true, source: 'role', viaRoleId: only },
        { allowed: false, source: 'default' },
        expect.objectContaining({ allowed: true, source: 'role' }),
      ]);
      for (const [i, c] of checks.entries()) expect(await api.check(c.userId, c.groupId, c.permission)).toEqual(results[i]);
    });

    it.each([
      ['an empty list', { checks: [] }, 'checks must hold 1 to 100 checks'],
      ['not a list', { checks: 'x' }, 'checks must be a list'],
      ['no list', {}, 'checks must be a list'],
      ['101 checks', { checks: Array.from({ length: 101 }, () => ({ userId: 'u', groupId: 'g', permission: 'p' })) }, 'checks must hold 1 to 100 checks'],
      ['an item not an object', { checks: [{ userId: 'u', groupId: 'g', permission: 'p' }, 7] }, 'checks[1] must be an object'],
      ['a key over 128', { checks: [0, 1, 2, 3].map((i) => ({ userId: 'u', groupId: 'g', permission: i === 3 ? 'x'.repeat(129) : 'p' })) }, 'checks[3].permission'],
      ['a missing userId', { checks: [{ groupId: 'g', permission: 'p' }] }, 'checks[0].userId is required'],
      ['an empty groupId', { checks: [{ userId: 'u', groupId: '', permission: 'p' }] }, 'checks[0].groupId must be a non-empty string'],
      ['a null permission', { checks: [{ userId: 'u', groupId: 'g', permission: 'p' }, { userId: 'u', groupId: 'g', permission: null }] }, 'checks[1].permission is required'],
      ['a number for a userId', { checks: [{ userId: 7, groupId: 'g', permission: 'p' }] }, 'checks[0].userId must be a non-empty string'],
      ['a NUL in a groupId', { checks: [{ userId: 'u', groupId: 'g', permission: 'p' }, { userId: 'u', groupId: 'g\u0000', permission: 'p' }] }, 'checks[1].groupId must not contain the NUL character'],
      ['the first bad field of an item', { checks: [{ userId: '', groupId: 7, permission: null }] }, 'checks[0].userId must be a non-empty string'],
    ])('refuses %s with 400 naming the field', async (_, body, named) => {
      const r = await t.http.post('/v1/permissions/check-batch').set(auth).send(body);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain(named);
    });
  });

  describe('GET /v1/groups/:id/members/:userId/permissions', () => {
    it('lists every allowed key ascending with its source, role and expiry; a denied key is absent', async () => {
      const { groupId, low, high, userId } = await arranged();
      const until = inSeconds(3600);
      await api.override(groupId, userId, 'a', false);
      await api.override(groupId, userId, 'e', true, { expiresAt: until });
      expect(await api.effective(groupId, userId)).toEqual([
        { permission: 'b', source: 'role', viaRoleId: high, expiresAt: null },
        { permission: 'c', source: 'role', viaRoleId: high, expiresAt: null },
        { permission: 'e', source: 'override', viaRoleId: null, expiresAt: until },
      ]);
      expect(low).toBeDefined();
    });

    it('is empty for a member who left and for an unknown user; 404 for a missing or foreign group', async () => {
      const { groupId, userId } = await arranged();
      expect(await api.effective(groupId, 'never-seen')).toEqual([]);
      await api.leave(groupId, userId);
      expect(await api.effective(groupId, userId)).toEqual([]);
      expectError(await t.http.get(`/v1/groups/${await other.group()}/members/${enc(userId)}/permissions`).set(auth), 404, 'not_found');
      expectError(await t.http.get(`/v1/groups/01900000-0000-7000-8000-000000000000/members/x/permissions`).set(auth), 404, 'not_found');
      expectError(await t.http.get(`/v1/groups/nope/members/x/permissions`).set(auth), 404, 'not_found');
    });
  });

  describe('GET /v1/users/:userId/groups?permission=', () => {
    it('pages every group allowing the key exactly once, every page full but the last, filtered by kind', async () => {
      const userId = uid();
      const expected: string[] = [];
      for (let i = 0; i < 7; i++) {
        const groupId = await api.group({ kind: i % 2 ? 'party' : 'guild' });
        await api.join(groupId, userId);
        const role = await api.role(groupId, 'r', 0);
        await api.grant(role, 'k');
        if (i === 3) continue; // a member without the key
        if (i === 5) await api.override(groupId, userId, 'k', false);
        await api.assign(groupId, userId, role);
        if (i !== 5) expected.unshift(groupId); // latest membership first
      }
      expect(await api.groupsAllowing(userId, 'k', 2)).toEqual(expected);
      expect(await api.groupsAllowing(userId, 'k', 100)).toEqual(expected);
      const parties = await api.groupsAllowing(userId, 'k', 1, 'party');
      expect(parties.length).toBeGreaterThan(0);
      expect(parties.every((id) => expected.includes(id))).toBe(true);
      expect(await api.groupsAllowing('never-seen', 'k')).toEqual([]);
    });

    it('requires the permission (1-128) and refuses a cursor of another key', async () => {
      expectError(await t.http.get('/v1/users/u/groups').set(auth), 400, 'bad_request');
      const long = await t.http.get('/v1/users/u/groups').set(auth).query({ permission: 'x'.repeat(129) });
      expectError(long, 400, 'bad_request');
      expect(long.body.message).toContain('permission');
      const userId = uid();
      for (let i = 0; i < 2; i++) {
        const g = await api.group();
        await api.join(g, userId);
        await api.override(g, userId, 'k', true);
      }
      const first = await t.http.get(`/v1/users/${userId}/groups`).set(auth).query({ permission: 'k', limit: 1 });
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const mixed = await t.http.get(`/v1/users/${userId}/groups`).set(auth).query({ permission: 'other', cursor: first.body.nextCursor });
      expectError(mixed, 400, 'bad_request');
    });
  });

  describe('GET /v1/groups/:id/members?permission=', () => {
    it('lists only the active members allowed the key, in the list order, across pages', async () => {
      const { groupId, low } = await arranged();
      const users = [uid(), uid(), uid(), uid(), uid()];
      for (const u of users) await api.join(groupId, u);
      await api.assign(groupId, users[0], low);
      await api.override(groupId, users[1], 'a', true);
      await api.assign(groupId, users[2], low);
      await api.override(groupId, users[2], 'a', false);
      await api.assign(groupId, users[3], low);
      await api.kick(groupId, users[3]);
      const all = await api.membersAllowed(groupId, 'a', 100);
      const paged = await api.membersAllowed(groupId, 'a', 1);
      expect(paged).toEqual(all);
      expect(all.slice(0, 2)).toEqual([users[1], users[0]]);
      expect(all).toHaveLength(3); // the arranged member holds low too
    });

    it('merges every granting role and the allowing overrides in member-list order, each holder once, on every page size', async () => {
      const { groupId, low, high, userId: both } = await arranged();
      const third = await api.role(groupId, 'third', 3);
      await api.grant(third, 'b');
      const users = Array.from({ length: 12 }, () => uid());
      for (const u of users) await api.join(groupId, u);
      // b: low, high and third grant it; 0-2 one role each, 3 two roles, 4 an override alone, 5 a
      // role denied by an override, 6 a role that expired, 7 a role then left, 8 a role then timed
      // out (b not in the game's timeout list), 9 an override that expired, 10-11 nothing.
      await api.assign(groupId, users[0], low);
      await api.assign(groupId, users[1], high);
      await api.assign(groupId, users[2], third);
      await api.assign(groupId, users[3], low);
      await api.assign(groupId, users[3], third);
      await api.override(groupId, users[4], 'b', true);
      await api.assign(groupId, users[5], high);
      await api.override(groupId, users[5], 'b', false);
      await api.assign(groupId, users[6], low);
      await t.db.query(`UPDATE member_roles SET expires_at = now() - interval '1 minute' WHERE member_id = (SELECT id FROM members WHERE group_id = $1 AND external_user_id = $2)`, [groupId, users[6]]);
      await api.assign(groupId, users[7], third);
      await api.leave(groupId, users[7]);
      await api.assign(groupId, users[8], high);
      expect((await t.http.post(`/v1/groups/${groupId}/members/${users[8]}/timeout`).set(auth).send({ duration: '1h' })).status).toBe(200);
      await api.override(groupId, users[9], 'b', true);
      await t.db.query(`UPDATE member_permission_overrides SET expires_at = now() - interval '1 minute' WHERE member_id = (SELECT id FROM members WHERE group_id = $1 AND external_user_id = $2)`, [groupId, users[9]]);
      // The plain member list's order, newest first, of those the single check allows.
      const listed = await t.http.get(`/v1/groups/${groupId}/members?limit=100`).set(auth);
      const order = (listed.body.items as { userId: string }[]).map((m) => m.userId);
      const expected: string[] = [];
      for (const u of order) if ((await api.check(u, groupId, 'b')).allowed) expected.push(u);
      expect([...expected].sort()).toEqual([both, users[0], users[1], users[2], users[3], users[4], users[8]].sort());
      for (const size of [1, 2, 3, 100]) expect({ size, members: await api.membersAllowed(groupId, 'b', size) }).toEqual({ size, members: expected });
    });

    it('finds grants written without their member order (by the previous release) through the trigger that fills it', async () => {
      const { groupId, low, userId: holder } = await arranged();
      const [u1, u2] = [uid(), uid()];
      for (const u of [u1, u2]) await api.join(groupId, u);
      const memberId = async (u: string) =>
        (await t.db.query<{ id: string }>('SELECT id FROM members WHERE group_id = $1 AND external_user_id = $2', [groupId, u]))[0].id;
      // The inserts release 1.0.0 sends: no member_joined_at, no group_id.
      await t.db.query('INSERT INTO member_roles (member_id, role_id) VALUES ($1, $2)', [await memberId(u1), low]);
      await t.db.query('INSERT INTO member_permission_overrides (member_id, permission, allowed) VALUES ($1, $2, true)', [await memberId(u2), 'a']);
      const [filled] = await t.db.query<{ roles: number; overrides: number }>(
        `SELECT (SELECT count(*)::int FROM member_roles mr JOIN members m ON m.id = mr.member_id WHERE m.group_id = $1 AND mr.member_joined_at = m.joined_at) AS roles,
                (SELECT count(*)::int FROM member_permission_overrides o JOIN members m ON m.id = o.member_id WHERE m.group_id = $1 AND o.group_id = m.group_id AND o.member_joined_at = m.joined_at) AS overrides`,
        [groupId],
      );
      // The arranged member's two assignments, u1's, and u2's override.
      expect(filled).toEqual({ roles: 3, overrides: 1 });
      expect(await api.membersAllowed(groupId, 'a', 1)).toEqual([u2, u1, holder]);
    });
  });

  describe('grants that expire', () => {
    it.each([
      [{ expiresIn: '1h', expiresAt: '2999-01-01T00:00:00Z' }, 'not both'],
      [{ expiresIn: '366d' }, 'at most 365d'],
      [{ expiresIn: '0m' }, 'expiresIn'],
      [{ expiresIn: '5w' }, 'expiresIn'],
      [{ expiresAt: '2001-01-01T00:00:00Z' }, 'in the future'],
      [{ expiresAt: 'tomorrow' }, 'expiresAt'],
    ])('refuses %j on assignment and override with 400', async (body, said) => {
      const { groupId, low, userId } = await arranged();
      const a = await t.http.post(`/v1/groups/${groupId}/members/${enc(userId)}/roles/${low}`).set(auth).send(body);
      expectError(a, 400, 'bad_request');
      expect(a.body.message).toContain(said);
      const o = await t.http.post(`/v1/groups/${groupId}/members/${enc(userId)}/permissions/k`).set(auth).send(body);
      expectError(o, 400, 'bad_request');
      expect(o.body.message).toContain(said);
    });

    it('accepts 365d, shows each assignment in roleGrants beside roles, and replaces the expiry when granted again', async () => {
      const { groupId, low, high, userId } = await arranged();
      const first = await api.assign(groupId, userId, low, { expiresIn: '365d' });
      expect(first.roles).toEqual([low, high]);
      expect(first.roleGrants).toEqual([
        { roleId: low, expiresAt: expect.any(String) },
        { roleId: high, expiresAt: null },
      ]);
      const at = inSeconds(7200);
      expect((await api.assign(groupId, userId, low, { expiresAt: at })).roleGrants[0]).toEqual({ roleId: low, expiresAt: at });
      expect((await api.assign(groupId, userId, low)).roleGrants[0]).toEqual({ roleId: low, expiresAt: null });
      const view = await t.http.get(`/v1/groups/${groupId}/members/${enc(userId)}`).set(auth);
      expect(view.body.roleGrants).toEqual([
        { roleId: low, expiresAt: null },
        { roleId: high, expiresAt: null },
      ]);
      const audit = await t.db.query<{ payload: { expiresAt: string | null } }>(
        `SELECT payload FROM ${journalAudit()} WHERE action = 'member.role.assigned' AND payload->>'roleId' = $1 AND target_id = $2 ORDER BY id`,
        [low, userId],
      );
      expect(audit.map((a) => a.payload.expiresAt)).toEqual([undefined, expect.any(String), at, undefined]);
    });

    it('every answer treats a grant as absent from its expiry on, cached answers included, before any sweep', async () => {
      const { groupId, low, high, userId } = await arranged();
      const at = inSeconds(1.5);
      await api.assign(groupId, userId, high, { expiresAt: at });
      await api.override(groupId, userId, 'a', false, { expiresAt: at });
      await api.override(groupId, userId, 'z', true, { expiresAt: at });
      const checks = ['a', 'b', 'c', 'z'].map((permission) => ({ userId, groupId, permission }));
      // Warm the cache on every key, then pass the expiry.
      expect(await api.batch(checks)).toEqual([
        { allowed: false, source: 'override' },
        { allowed: true, source: 'role', viaRoleId: high },
        { allowed: true, source: 'role', viaRoleId: high },
        { allowed: true, source: 'override' },
      ]);
      expect(await api.check(userId, groupId, 'b')).toEqual({ allowed: true, source: 'role', viaRoleId: high });
      expect(await api.effective(groupId, userId)).toEqual([
        { permission: 'b', source: 'role', viaRoleId: high, expiresAt: at },
        { permission: 'c', source: 'role', viaRoleId: high, expiresAt: at },
        { permission: 'z', source: 'override', viaRoleId: null, expiresAt: at },
      ]);
      expect(await api.membersAllowed(groupId, 'c')).toEqual([userId]);
      expect(await api.groupsAllowing(userId, 'z')).toEqual([groupId]);
      await untilPast(t, at);
      const after = [
        { allowed: true, source: 'role', viaRoleId: low },
        { allowed: true, source: 'role', viaRoleId: low },
        { allowed: false, source: 'default' },
        { allowed: false, source: 'default' },
      ];
      expect(await api.batch(checks)).toEqual(after);
      for (const [i, c] of checks.entries()) expect(await api.check(c.userId, c.groupId, c.permission)).toEqual(after[i]);
      expect(await api.effective(groupId, userId)).toEqual([
        { permission: 'a', source: 'role', viaRoleId: low, expiresAt: null },
        { permission: 'b', source: 'role', viaRoleId: low, expiresAt: null },
      ]);
      expect(await api.membersAllowed(groupId, 'c')).toEqual([]);
      expect(await api.groupsAllowing(userId, 'z')).toEqual([]);
      const view = await t.http.get(`/v1/groups/${groupId}/members/${enc(userId)}`).set(auth);
      expect(view.body.roles).toEqual([low]);
    });

    it('the sweeper removes expired grants with the removal audit entries (no actor, reason expired) and event', async () => {
      const { groupId, low, high, userId } = await arranged();
      const at = inSeconds(1);
      await api.assign(groupId, userId, high, { expiresAt: at });
      await api.override(groupId, userId, 'k', true, { expiresAt: at });
      const keep = uid();
      await api.join(groupId, keep);
      await api.assign(groupId, keep, high, { expiresIn: '1h' });
      await untilPast(t, at);
      const sweeper = t.app.get(GrantSweeper);
      const swept = await sweeper.sweep();
      expect(swept.roles).toBeGreaterThanOrEqual(1);
      expect(swept.overrides).toBeGreaterThanOrEqual(1);
      const rows = await t.db.query(
        `SELECT (SELECT count(*)::int FROM member_roles mr JOIN members m ON m.id = mr.member_id WHERE m.group_id = $1 AND m.external_user_id = $2) AS roles,
                (SELECT count(*)::int FROM member_roles mr JOIN members m ON m.id = mr.member_id WHERE m.group_id = $1 AND m.external_user_id = $3) AS kept`,
        [groupId, userId, keep],
      );
      expect(rows[0]).toEqual({ roles: 1, kept: 1 });
      const audit = await t.db.query<{ action: string; actor_user_id: string | null; payload: Record<string, unknown> }>(
        `SELECT action, actor_user_id, payload FROM ${journalAudit()} WHERE group_id = $1 AND target_id = $2 AND payload->>'reason' = 'expired' ORDER BY action`,
        [groupId, userId],
      );
      expect(audit).toEqual([
        { action: 'member.role.removed', actor_user_id: null, payload: expect.objectContaining({ roleId: high, reason: 'expired' }) },
        { action: 'permission.override.cleared', actor_user_id: null, payload: expect.objectContaining({ permission: 'k', allowed: true, reason: 'expired' }) },
      ]);
      const events = await t.db.query<{ body: { reason: string; member: { roles: string[]; userId: string }; changes: string[] } }>(
        `SELECT body FROM ${journalEvents()} WHERE game_id = $1 AND group_id = $2 AND type = 'member.updated' AND body->>'reason' = 'expired'`,
        [gameId, groupId],
      );
      expect(events.map((e) => e.body)).toEqual([expect.objectContaining({ changes: ['roles'], reason: 'expired', member: expect.objectContaining({ userId, roles: [low] }) })]);
      expect(await sweeper.sweep()).toEqual({ roles: 0, overrides: 0, timeouts: 0 });
    });

    it('a grant renewed before the sweep stays', async () => {
      const { groupId, high, userId } = await arranged();
      const at = inSeconds(1);
      await api.assign(groupId, userId, high, { expiresAt: at });
      await untilPast(t, at);
      await api.assign(groupId, userId, high, { expiresIn: '1h' });
      await t.app.get(GrantSweeper).sweep();
      expect((await api.check(userId, groupId, 'c')).viaRoleId).toBe(high);
    });
  });
});
