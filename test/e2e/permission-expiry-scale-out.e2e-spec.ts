import { GrantSweeper } from '../../src/permissions/grant-sweeper';
import { journalAudit } from '../helpers/journal';
import { permissionApi, untilPast } from '../helpers/permissions';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X8 across instances: two app instances on one database, each with its own answer
 * cache. A grant made on one reaches the other's cached answers through NOTIFY; at its expiry both
 * stop answering it from their caches, before any sweep; both sweepers running at once remove
 * each expired grant once (one audit entry each).
 */
describe('grants that expire, across two instances', () => {
  let one: TestApp;
  let two: TestApp;
  let a: ReturnType<typeof permissionApi>;
  let b: ReturnType<typeof permissionApi>;
  let headers: Record<string, string>;

  beforeAll(async () => {
    one = await startTestApp();
    two = await startTestApp({}, one.db);
    const { auth, gameId } = await authedGame(one, 'x8 scale-out');
    a = permissionApi(one, auth);
    b = permissionApi(two, auth);
    await one.http.patch(`/v1/admin/games/${gameId}/config`).set(asAdmin).send({ config: { moderation: { timeoutDeniedPermissions: ['chat.send'] } } }).expect(200);
    headers = auth;
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  /** The answer of `api` once it is `want`: the other instance hears the commit a moment later. */
  async function eventually(api: typeof a, userId: string, groupId: string, permission: string, want: unknown) {
    for (let i = 0; i < 500; i++) {
      const got = await api.check(userId, groupId, permission);
      if (JSON.stringify(got) === JSON.stringify(want)) return got;
      await new Promise((r) => setTimeout(r, 10));
    }
    return a.check(userId, groupId, permission);
  }

  it('invalidates the other cache on grant, and both caches stop at the expiry', async () => {
    const groupId = await a.group();
    const role = await a.role(groupId, 'temp', 1);
    await a.grant(role, 'raid.lead');
    await a.join(groupId, 'player');
    const none = { allowed: false, source: 'default' };
    expect(await a.check('player', groupId, 'raid.lead')).toEqual(none);
    expect(await b.check('player', groupId, 'raid.lead')).toEqual(none);

    const at = new Date(Date.now() + 2500).toISOString();
    await b.assign(groupId, 'player', role, { expiresAt: at });
    const granted = { allowed: true, source: 'role', viaRoleId: role };
    expect(await eventually(a, 'player', groupId, 'raid.lead', granted)).toEqual(granted);
    expect(await b.check('player', groupId, 'raid.lead')).toEqual(granted);
    // Both answers are cached now; the next change to them is the expiry itself.
    expect(await a.batch([{ userId: 'player', groupId, permission: 'raid.lead' }])).toEqual([granted]);

    await untilPast(one, at);
    expect(await a.check('player', groupId, 'raid.lead')).toEqual(none);
    expect(await b.check('player', groupId, 'raid.lead')).toEqual(none);
    expect(await b.batch([{ userId: 'player', groupId, permission: 'raid.lead' }])).toEqual([none]);
    expect(await a.effective(groupId, 'player')).toEqual([]);
  });

  it('a timeout set on one instance reaches the other’s cached answers, and both stop denying at its end (EXTENSIONS X10)', async () => {
    const groupId = await a.group();
    const role = await a.role(groupId, 'talker', 1);
    await a.grant(role, 'chat.send');
    await a.join(groupId, 'muted');
    await a.assign(groupId, 'muted', role);
    const granted = { allowed: true, source: 'role', viaRoleId: role };
    expect(await a.check('muted', groupId, 'chat.send')).toEqual(granted);
    expect(await b.check('muted', groupId, 'chat.send')).toEqual(granted);

    const set = await one.http.post(`/v1/groups/${groupId}/members/muted/timeout`).set(headers).send({ duration: '3s' });
    expect(set.status).toBe(200);
    const timeout = { allowed: false, source: 'timeout' };
    expect(await a.check('muted', groupId, 'chat.send')).toEqual(timeout);
    expect(await eventually(b, 'muted', groupId, 'chat.send', timeout)).toEqual(timeout);
    expect(await b.batch([{ userId: 'muted', groupId, permission: 'chat.send' }])).toEqual([timeout]);

    await untilPast(one, set.body.timedOutUntil);
    expect(await a.check('muted', groupId, 'chat.send')).toEqual(granted);
    expect(await b.check('muted', groupId, 'chat.send')).toEqual(granted);
    expect(await b.membersAllowed(groupId, 'chat.send')).toEqual(['muted']);
  });

  it('two sweepers at once remove each expired grant once', async () => {
    await one.app.get(GrantSweeper).sweep(); // what the test before left to sweep
    const groupId = await a.group();
    const role = await a.role(groupId, 'temp', 1);
    await a.grant(role, 'k');
    const users = Array.from({ length: 30 }, (_, i) => `sweep-${i}`);
    for (const u of users) {
      await a.join(groupId, u);
      await a.assign(groupId, u, role, { expiresIn: '1h' });
      await b.override(groupId, u, 'o', true, { expiresIn: '1h' });
    }
    // The hour passed: arranged in the database, as the grants stand between their expiry and a sweep.
    const members = `(SELECT id FROM members WHERE group_id = '${groupId}')`;
    await one.db.query(`UPDATE member_roles SET expires_at = now() - interval '1 second' WHERE member_id IN ${members}`);
    await one.db.query(`UPDATE member_permission_overrides SET expires_at = now() - interval '1 second' WHERE member_id IN ${members}`);
    const [x, y] = await Promise.all([one.app.get(GrantSweeper).sweep(), two.app.get(GrantSweeper).sweep()]);
    expect(x.roles + y.roles).toBe(users.length);
    expect(x.overrides + y.overrides).toBe(users.length);
    const [counts] = await one.db.query(
      `SELECT count(*) FILTER (WHERE action = 'member.role.removed')::int AS roles, count(*) FILTER (WHERE action = 'permission.override.cleared')::int AS overrides
       FROM ${journalAudit()} WHERE group_id = $1 AND payload->>'reason' = 'expired'`,
      [groupId],
    );
    expect(counts).toEqual({ roles: users.length, overrides: users.length });
    expect(await a.membersAllowed(groupId, 'k')).toEqual([]);
    expect(await b.membersAllowed(groupId, 'o')).toEqual([]);
    // Ninety writes arrange it: seconds alone, more on a machine loaded by other suites.
  }, 120_000);
});
