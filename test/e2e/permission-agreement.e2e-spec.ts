import fc from 'fast-check';
import { permissionApi } from '../helpers/permissions';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X8 "every answer resolves exactly as the single check": a seeded property test. Each
 * run builds two groups with the same random model (roles with priorities, ties included; their
 * keys; members in every status; role assignments and overrides, allowing or denying, permanent,
 * expired or still running) and asks every question of every (user, group, key): the single check
 * (twice, the second from the cache), the batch, the effective set, the member list filtered by
 * the key and the user's groups allowing it. The lists are SQL of their own (grant-sql.ts): this is
 * what holds them to the resolver.
 *
 * Expired grants are written straight to the database (the API takes only future expiries), as a
 * grant looks between its expiry and the sweep; nothing was cached for them before. Members may be
 * timed out (EXTENSIONS X10), running or ended, with the game denying two of the keys to them.
 */

jest.setTimeout(240_000);

const KEYS = ['k.a', 'k.b', 'k.c', 'k.d'];
const STATUSES = ['active', 'active', 'left', 'kicked', 'banned', 'never'] as const;
const EXPIRIES = ['none', 'past', 'future'] as const;

type Expiry = (typeof EXPIRIES)[number];
interface UserModel {
  status: (typeof STATUSES)[number];
  timeout: Expiry;
  assignments: { role: number; expiry: Expiry }[];
  overrides: { key: string; allowed: boolean; expiry: Expiry }[];
}

const roleArb = fc.record({ priority: fc.integer({ min: -2, max: 2 }), keys: fc.subarray(KEYS) });
const userArb = (roles: number): fc.Arbitrary<UserModel> =>
  fc.record({
    status: fc.constantFrom(...STATUSES),
    timeout: fc.constantFrom(...EXPIRIES),
    assignments: fc.uniqueArray(fc.record({ role: fc.nat({ max: roles - 1 }), expiry: fc.constantFrom(...EXPIRIES) }), { selector: (a) => a.role, maxLength: roles }),
    overrides: fc.uniqueArray(fc.record({ key: fc.constantFrom(...KEYS), allowed: fc.boolean(), expiry: fc.constantFrom(...EXPIRIES) }), { selector: (o) => o.key, maxLength: 3 }),
  });
const scenarioArb = fc
  .array(roleArb, { minLength: 1, maxLength: 4 })
  .chain((roles) => fc.record({ roles: fc.constant(roles), groups: fc.array(fc.array(userArb(roles.length), { minLength: 3, maxLength: 5 }), { minLength: 2, maxLength: 2 }) }));

describe('one resolution: the batch, the effective set and both lists agree with the single check', () => {
  let t: TestApp;
  let api: ReturnType<typeof permissionApi>;
  let auth: Record<string, string>;
  let run = 0;
  let timeoutAnswers = 0;

  beforeAll(async () => {
    t = await startTestApp();
    let gameId: string;
    ({ auth, gameId } = await authedGame(t, 'agreement'));
    api = permissionApi(t, auth);
    const r = await t.http.patch(`/v1/admin/games/${gameId}/config`).set(asAdmin).send({ config: { moderation: { timeoutDeniedPermissions: ['k.a', 'k.c'] } } });
    expect(r.status).toBe(200);
  });
  afterAll(() => t.close());

  async function build(scenario: { roles: { priority: number; keys: string[] }[]; groups: UserModel[][] }) {
    run++;
    const groups: { id: string; users: string[] }[] = [];
    const future = { expiresIn: '1h' };
    for (const [g, users] of scenario.groups.entries()) {
      const groupId = await api.group();
      const roleIds: string[] = [];
      for (const [i, r] of scenario.roles.entries()) {
        const id = await api.role(groupId, `r${i}`, r.priority);
        for (const k of r.keys) await api.grant(id, k);
        roleIds.push(id);
      }
      // The same user ids in both groups, so that the user's groups list has something to choose from.
      const userIds = users.map((_, i) => `agree-${run}-${i}`);
      for (const [i, u] of users.entries()) {
        const userId = userIds[i];
        if (u.status === 'never') continue;
        await api.join(groupId, userId);
        for (const a of u.assignments) await api.assign(groupId, userId, roleIds[a.role], a.expiry === 'future' ? future : {});
        for (const o of u.overrides) await api.override(groupId, userId, o.key, o.allowed, o.expiry === 'future' ? future : {});
        for (const a of u.assignments.filter((x) => x.expiry === 'past')) {
          await t.db.query(`UPDATE member_roles SET expires_at = now() - interval '1 minute' WHERE role_id = $1 AND member_id = (SELECT id FROM members WHERE group_id = $2 AND external_user_id = $3)`, [roleIds[a.role], groupId, userId]);
        }
        for (const o of u.overrides.filter((x) => x.expiry === 'past')) {
          await t.db.query(`UPDATE member_permission_overrides SET expires_at = now() - interval '1 minute' WHERE permission = $1 AND member_id = (SELECT id FROM members WHERE group_id = $2 AND external_user_id = $3)`, [o.key, groupId, userId]);
        }
        if (u.timeout !== 'none') {
          const r = await t.http.post(`/v1/groups/${groupId}/members/${userId}/timeout`).set(auth).send({ duration: '1h' });
          if (r.status !== 200) throw new Error(`timeout: ${r.status} ${r.text}`);
        }
        if (u.timeout === 'past') {
          await t.db.query(`UPDATE members SET timed_out_until = now() - interval '1 minute' WHERE group_id = $1 AND external_user_id = $2`, [groupId, userId]);
        }
        if (u.status === 'left') await api.leave(groupId, userId);
        if (u.status === 'kicked') await api.kick(groupId, userId);
        if (u.status === 'banned') {
          const r = await t.http.post(`/v1/groups/${groupId}/bans`).set(auth).send({ userId });
          if (r.status !== 201) throw new Error(`ban: ${r.status} ${r.text}`);
        }
      }
      groups.push({ id: groupId, users: userIds });
      expect(g).toBe(groups.length - 1);
    }
    return groups;
  }

  it('never disagree (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const groups = await build(scenario);
        const users = [...new Set(groups.flatMap((g) => g.users))];
        const checks = groups.flatMap((g) => users.flatMap((userId) => KEYS.map((permission) => ({ userId, groupId: g.id, permission }))));
        const single: Record<string, unknown>[] = [];
        for (const c of checks) single.push(await api.check(c.userId, c.groupId, c.permission));
        timeoutAnswers += single.filter((a) => a.source === 'timeout').length;
        for (const [i, c] of checks.entries()) expect({ c, cached: await api.check(c.userId, c.groupId, c.permission) }).toEqual({ c, cached: single[i] });
        const batch: Record<string, unknown>[] = [];
        for (let i = 0; i < checks.length; i += 100) batch.push(...(await api.batch(checks.slice(i, i + 100))));
        expect(batch).toEqual(single);
        const allowed = (userId: string, groupId: string, permission: string) =>
          single[checks.findIndex((c) => c.userId === userId && c.groupId === groupId && c.permission === permission)];
        for (const g of groups) {
          for (const userId of users) {
            const expected = KEYS.filter((k) => allowed(userId, g.id, k).allowed).map((k) => {
              const a = allowed(userId, g.id, k);
              return { permission: k, source: a.source, viaRoleId: a.source === 'role' ? a.viaRoleId : null };
            });
            const effective = (await api.effective(g.id, userId)).map(({ permission, source, viaRoleId }) => ({ permission, source, viaRoleId }));
            expect({ userId, group: g.id, effective }).toEqual({ userId, group: g.id, effective: expected });
          }
          for (const k of KEYS) {
            const members = (await api.membersAllowed(g.id, k, 2)).sort();
            expect({ group: g.id, k, members }).toEqual({ group: g.id, k, members: users.filter((u) => allowed(u, g.id, k).allowed).sort() });
          }
        }
        for (const userId of users) {
          for (const k of KEYS) {
            const listed = (await api.groupsAllowing(userId, k, 1)).sort();
            expect({ userId, k, listed }).toEqual({ userId, k, listed: groups.filter((g) => allowed(userId, g.id, k).allowed).map((g) => g.id).sort() });
          }
        }
      }),
      { seed: 45, numRuns: 12, endOnFailure: true },
    );
    // The runs met timeouts that decided answers, not only ones that ended or denied unlisted keys.
    expect(timeoutAnswers).toBeGreaterThan(0);
  });
});
