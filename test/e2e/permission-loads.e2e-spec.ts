import { Client } from 'pg';
import { PermissionCache } from '../../src/permissions/permission-cache';
import { PermissionsRepository } from '../../src/permissions/permissions.repository';
import { postGroup } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Grant profiles loaded once for many requests: the requests that miss the cache while a load of
 * the same (group, user) is in flight join it, unless the group was invalidated since that load
 * began. The load is held open by a transaction that locks a table its statement reads, so every
 * request arrives while it is in flight.
 */
describe('permission profile loads in flight', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let loads: jest.SpyInstance;
  let blocker: Client;

  beforeAll(async () => {
    t = await startTestApp();
    ({ auth } = await authedGame(t, 'perm loads'));
    loads = jest.spyOn(t.app.get(PermissionsRepository), 'profiles');
  });
  afterAll(async () => {
    await blocker?.end().catch(() => undefined);
    await t.close();
  });

  const check = (groupId: string) => t.http.get(`/v1/permissions/check?userId=owner&groupId=${groupId}&permission=raid.lead`).set(auth);

  /** Holds every profile load (which reads role_permissions) until release() is called. */
  async function holdLoads(): Promise<{ release: () => Promise<void> }> {
    blocker = new Client({ connectionString: t.db.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE role_permissions IN ACCESS EXCLUSIVE MODE');
    return { release: () => blocker.query('COMMIT').then(() => blocker.end()) };
  }

  /** Waits until `n` statements of this database wait for the lock. */
  async function waitingForLock(n: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const [{ waiting }] = await t.db.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (waiting >= n) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`fewer than ${n} statements waited for the lock`);
  }

  const newGroup = () => postGroup(t, auth, { kind: 'guild', name: 'loads', visibility: 'public', creatorUserId: 'owner' }).then((g) => g.id);

  it('answers 30 requests that miss together from one load', async () => {
    const groupId = await newGroup();
    loads.mockClear();
    const held = await holdLoads();
    const answers = Array.from({ length: 30 }, () => check(groupId).then((r) => r));
    await waitingForLock(1);
    // The other 29 are in flight too: each is past its cache lookup once it waits on the load.
    await new Promise((r) => setTimeout(r, 300));
    expect(loads).toHaveBeenCalledTimes(1);
    await held.release();
    const done = await Promise.all(answers);
    expect(done.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(new Set(done.map((r) => r.text)).size).toBe(1);
    expect(loads).toHaveBeenCalledTimes(1);
  });

  it('does not join a load begun before the group was invalidated', async () => {
    const groupId = await newGroup();
    loads.mockClear();
    const held = await holdLoads();
    const before = check(groupId).then((r) => r);
    await waitingForLock(1);
    // What a commit changing the group's grants does on this instance, the instant it commits.
    t.app.get(PermissionCache).invalidate(groupId);
    const after = check(groupId).then((r) => r);
    await waitingForLock(2);
    expect(loads).toHaveBeenCalledTimes(2);
    await held.release();
    expect((await before).status).toBe(200);
    expect((await after).status).toBe(200);
  });
});
