import { randomUUID } from 'node:crypto';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Client } from 'pg';
import { MIGRATIONS } from '../../migrations';
import { CreatorCounted1768800000000 } from '../../migrations/1768800000000-creator-counted';
import { oldestReleaseFor } from '../../migrations/release';
import { MemberCountFolder } from '../../src/groups/member-count-folder';
import { joinOk, postGroup, postLeave } from '../helpers/groups';
import { onFreshDatabase } from '../helpers/query-runner';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * A group created with a creator the game knows is inserted with its counter at 1, and the
 * creator's membership writes no delta: no fold updates the new row again. Everything else counts
 * by deltas as before, the inserts of the release before this one included.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  // The counter is read between writes: a fold on the folder's own clock (every second) would move
  // deltas into it mid-test. The test folds when it means to.
  t.app.get(SchedulerRegistry).deleteInterval('member-count-folder');
});
afterAll(() => t.close());

type Auth = Record<string, string>;
const counter = async (groupId: string) =>
  (
    await t.db.query<{ folded: number; deltas: number }>(
      `SELECT g.active_member_count AS folded, (SELECT count(*)::int FROM group_member_count_deltas d WHERE d.group_id = g.id) AS deltas FROM groups g WHERE g.id = $1`,
      [groupId],
    )
  )[0];
const memberCount = async (auth: Auth, groupId: string) => (await t.http.get(`/v1/groups/${groupId}`).set(auth).expect(200)).body.memberCount as number;

it('a creator the game knows is counted by the insert: no delta, and the count stays exact as members come and go', async () => {
  const { auth } = await authedGame(t);
  await postGroup(t, auth, { kind: 'party', name: 'first', creatorUserId: 'founder' });
  const group = await postGroup<{ id: string; memberCount: number }>(t, auth, { kind: 'guild', name: 'second', visibility: 'public', creatorUserId: 'founder' });
  expect(group.memberCount).toBe(1);
  expect(await counter(group.id)).toEqual({ folded: 1, deltas: 0 });
  expect(await memberCount(auth, group.id)).toBe(1);

  await joinOk(t, auth, group.id, 'second-member');
  expect((await postLeave(t, auth, group.id, { userId: 'second-member' })).status).toBe(200);
  await joinOk(t, auth, group.id, 'third-member');
  expect(await counter(group.id)).toEqual({ folded: 1, deltas: 3 });
  expect(await memberCount(auth, group.id)).toBe(2);
  await t.app.get(MemberCountFolder).fold();
  expect(await counter(group.id)).toEqual({ folded: 2, deltas: 0 });
  expect(await memberCount(auth, group.id)).toBe(2);
});

it('a creator the game meets only now is counted by their membership, as before', async () => {
  const { auth } = await authedGame(t);
  const group = await postGroup<{ id: string; memberCount: number }>(t, auth, { kind: 'guild', name: 'newcomer', creatorUserId: 'stranger' });
  expect(group.memberCount).toBe(1);
  expect(await counter(group.id)).toEqual({ folded: 0, deltas: 1 });
  expect(await memberCount(auth, group.id)).toBe(1);
});

it('a cap of one still admits the creator, known or not, and no one after', async () => {
  const { auth } = await authedGame(t);
  await postGroup(t, auth, { kind: 'party', name: 'first', creatorUserId: 'known' });
  for (const creatorUserId of ['known', 'unknown']) {
    const group = await postGroup<{ id: string; memberCount: number }>(t, auth, { kind: 'guild', name: `capped ${creatorUserId}`, visibility: 'public', maxMembers: 1, creatorUserId });
    expect(group.memberCount).toBe(1);
    const late = await t.http.post(`/v1/groups/${group.id}/join`).set(auth).send({ userId: 'late' });
    expect([late.status, late.body.code]).toEqual([409, 'group_full']);
  }
});

describe('the member counter as other writers use it', () => {
  let c: Client;
  beforeAll(async () => {
    c = new Client({ connectionString: t.db.url });
    await c.connect();
  });
  afterAll(() => c.end());

  /**
   * A group inserted as release 1.12.0 does (its counter 0) and `n` active members, in one
   * transaction; with `note`, svc_count_creator is called first for the group or for another.
   */
  async function insertGroup(n: number, note?: 'its own' | 'another'): Promise<string> {
    const gameId = randomUUID();
    await c.query(`INSERT INTO games (id, name) VALUES ($1, 'writers')`, [gameId]);
    const groupId = randomUUID();
    await c.query('BEGIN');
    await c.query(`INSERT INTO groups (id, game_id, kind, name, visibility) VALUES ($1, $2, 'guild', 'by hand', 'public')`, [groupId, gameId]);
    if (note) await c.query('SELECT svc_count_creator($1)', [note === 'its own' ? groupId : randomUUID()]);
    for (let i = 0; i < n; i++) {
      const userId = randomUUID();
      await c.query(`INSERT INTO users (id) VALUES ($1)`, [userId]);
      await c.query(`INSERT INTO user_identities (game_id, external_id, user_id) VALUES ($1, $2, $3)`, [gameId, `p${i}`, userId]);
      await c.query(`INSERT INTO members (id, group_id, user_id, external_user_id, status) VALUES ($1, $2, $3, $4, 'active')`, [randomUUID(), groupId, userId, `p${i}`]);
    }
    await c.query('COMMIT');
    return groupId;
  }

  it('the release before this one, which never notes a group, has every active member counted by a delta', async () => {
    expect(await counter(await insertGroup(2))).toEqual({ folded: 0, deltas: 2 });
  });

  it('a note lets one member go uncounted, and only in its own group', async () => {
    expect(await counter(await insertGroup(3, 'its own'))).toEqual({ folded: 0, deltas: 2 });
    expect(await counter(await insertGroup(2, 'another'))).toEqual({ folded: 0, deltas: 2 });
  });
});

describe('CreatorCounted1768800000000', () => {
  it('is an expand of 1.13.0 that lets 1.12.0 run beside it', () => {
    const migration = new CreatorCounted1768800000000();
    expect(migration.release).toEqual({ version: '1.13.0', kind: 'expand' });
    expect(oldestReleaseFor(migration.release)).toBe('1.12.0');
    expect(MIGRATIONS).toContain(CreatorCounted1768800000000);
  });

  it('its down drops the function and counts every member again; up twice', async () => {
    const migration = new CreatorCounted1768800000000();
    await onFreshDatabase(async (q) => {
      await migration.down(q);
      expect(await q.query(`SELECT to_regproc('svc_count_creator') AS f`)).toEqual([{ f: null }]);
      const source = async () => ((await q.query(`SELECT prosrc FROM pg_proc WHERE proname = 'members_active_count'`)) as { prosrc: string }[])[0].prosrc;
      expect(await source()).not.toContain('svc.counted_creator');
      await migration.up(q);
      await migration.up(q);
      expect(await q.query(`SELECT to_regproc('svc_count_creator')::text AS f`)).toEqual([{ f: 'svc_count_creator' }]);
      expect(await source()).toContain('svc.counted_creator');
    });
  });
});
