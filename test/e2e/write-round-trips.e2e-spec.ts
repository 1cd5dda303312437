import { SchedulerRegistry } from '@nestjs/schedule';
import { Client } from 'pg';
import { CommitAnnouncer } from '../../src/db/commit-announcer';
import { ServiceClient } from '../../src/db/prepared-client';
import { accept, friendsGame, sendPending } from '../helpers/friends';
import { postGroup } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * What a write costs is mostly its round trips to PostgreSQL: a public join and a leave are two
 * each (the group with the user and the member's change in one statement, then the audit and
 * events with the COMMIT).
 */
describe('round trips of the hot writes', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
    // The member-count folder, the suggestions refresher and the writer of API key uses query on the
    // same pool on their own clocks: their statements are not the write's, and a tick inside a
    // measured call would count them.
    t.app.get(SchedulerRegistry).deleteInterval('member-count-folder');
    t.app.get(SchedulerRegistry).deleteInterval('friend-suggestions');
    t.app.get(SchedulerRegistry).deleteInterval('api-key-uses');
    ({ auth } = await authedGame(t, 'round trips'));
  });
  afterAll(() => t.close());

  /** The wake-ups sent after the last measured call's commit (CommitAnnouncer), apart from its round trips. */
  let announcements: string[] = [];
  const ANNOUNCEMENT = /^SET LOCAL synchronous_commit TO off; SELECT count\(pg_notify/;
  /**
   * Statements the service's pool connections send while `call` runs (BEGIN and COMMIT folded in
   * count nothing), but for the wake-ups after its commit, which are waited for and kept apart: they
   * are sent once for all the commits of a moment, off the write's transaction.
   */
  const roundTrips = async (call: () => Promise<unknown>) => {
    // The previous call's wake-ups may still be on their way (sent after its answer, and the same
    // statement when it wrote to the same group): they are not this call's.
    await t.app.get(CommitAnnouncer).settled();
    const sent: string[] = [];
    const original = Client.prototype.query;
    const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const [first] = args;
      if (this instanceof ServiceClient) sent.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
    try {
      await call();
      await t.app.get(CommitAnnouncer).settled();
    } finally {
      spy.mockRestore();
    }
    announcements = sent.filter((s) => ANNOUNCEMENT.test(s));
    return sent.filter((s) => !ANNOUNCEMENT.test(s));
  };

  it('a public join is two round trips and a leave two', async () => {
    const group = await postGroup(t, auth, { kind: 'guild', name: 'trips', visibility: 'public' });
    // A first join makes the user known; the measured one reuses the identity, as most joins do.
    await t.http.post(`/v1/groups/${group.id}/join`).set(auth).send({ userId: 'tripper' }).expect(201);
    await t.http.post(`/v1/groups/${group.id}/leave`).set(auth).send({ userId: 'tripper' }).expect(200);

    const join = await roundTrips(() => t.http.post(`/v1/groups/${group.id}/join`).set(auth).send({ userId: 'tripper' }).expect(201));
    // Its events and the group's permission answers, both in one statement after the commit.
    expect(announcements).toHaveLength(1);
    const leave = await roundTrips(() => t.http.post(`/v1/groups/${group.id}/leave`).set(auth).send({ userId: 'tripper' }).expect(200));
    expect({ join: join.length, leave: leave.length }).toEqual({ join: 2, leave: 2 });
    // The join inserts its member, or reuses the row it finds; the leave updates it.
    expect(join[0]).toMatch(/^\s*WITH lookup AS .*, fresh AS \(\s*INSERT INTO members .*reused AS \(\s*UPDATE members .*alongside AS \(SELECT \* FROM fresh UNION ALL SELECT \* FROM reused\)/s);
    expect(leave[0]).toMatch(/^\s*WITH lookup AS .*, alongside AS \(\s*UPDATE members/s);
    for (const [, flush] of [join, leave]) expect(flush).toMatch(/^\s*WITH audit AS/);
  });

  it('a permission override set is two round trips and its clearing two: the override changes in the group lookup statement', async () => {
    const group = await postGroup(t, auth, { kind: 'guild', name: 'override trips', visibility: 'public' });
    await t.http.post(`/v1/groups/${group.id}/join`).set(auth).send({ userId: 'overridden' }).expect(201);
    const path = `/v1/groups/${group.id}/members/overridden/permissions/chat.mute`;
    const set = await roundTrips(() => t.http.post(path).set(auth).send({ allowed: false }).expect(200));
    const clear = await roundTrips(() => t.http.delete(path).set(auth).expect(204));
    expect({ set: set.length, clear: clear.length }).toEqual({ set: 2, clear: 2 });
    expect(set[0]).toMatch(/^\s*WITH lookup AS .*up AS \(\s*INSERT INTO member_permission_overrides.*alongside AS \(\s*SELECT/s);
    expect(clear[0]).toMatch(/^\s*WITH lookup AS .*gone AS \(DELETE FROM member_permission_overrides.*alongside AS \(\s*SELECT/s);
  });

  it('a role assign is two round trips and its removal two: the role is read and changed in the group lookup statement', async () => {
    const group = await postGroup(t, auth, { kind: 'guild', name: 'role trips', visibility: 'public' });
    await t.http.post(`/v1/groups/${group.id}/join`).set(auth).send({ userId: 'promoted' }).expect(201);
    const role = (await t.http.post(`/v1/groups/${group.id}/roles`).set(auth).send({ name: 'officer', priority: 5 }).expect(201)).body as { id: string };
    const path = `/v1/groups/${group.id}/members/promoted/roles/${role.id}`;
    const assign = await roundTrips(() => t.http.post(path).set(auth).expect(200));
    const remove = await roundTrips(() => t.http.delete(path).set(auth).expect(200));
    expect({ assign: assign.length, remove: remove.length }).toEqual({ assign: 2, remove: 2 });
    expect(assign[0]).toMatch(/^\s*WITH lookup AS .*FOR KEY SHARE OF r\),.*change AS \(INSERT INTO member_roles/s);
    expect(remove[0]).toMatch(/^\s*WITH lookup AS .*FOR KEY SHARE OF r\),.*change AS \(DELETE FROM member_roles/s);
  });

  it('friend writes: the pair lock rides with the statement after it; a send of known users is three round trips (its checks and the request in one statement), an accept three, a removal three', async () => {
    const g = await friendsGame(t);
    // Both users known already, as for most requests: identities are one lookup, no insert.
    await sendPending(g, 'asker', 'asked');
    await t.db.query(`DELETE FROM user_relationships WHERE game_id = $1`, [g.gameId]);
    let requestId = '';
    const sent = await roundTrips(async () => {
      requestId = await sendPending(g, 'asker', 'asked');
    });
    const accepted = await roundTrips(async () => expect((await accept(g, requestId)).status).toBe(200));
    const removed = await roundTrips(async () => expect((await g.del('/v1/users/asker/friends/asked')).status).toBe(204));
    expect({ send: sent.length, accept: accepted.length, remove: removed.length }).toEqual({ send: 3, accept: 3, remove: 3 });
    for (const write of [sent, accepted, removed]) expect(write.filter((text) => /svc_lock_keys|pg_advisory/.test(text))).toEqual([]);
  });

  it('a group created with a creator the game knows is two round trips: the group, its creator and their membership in one statement', async () => {
    const known = await postGroup(t, auth, { kind: 'guild', name: 'first', visibility: 'public', creatorUserId: 'founder' });
    expect(known.id).toBeTruthy();
    const created = await roundTrips(() =>
      t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'second', visibility: 'public', creatorUserId: 'founder' }).expect(201),
    );
    expect(created).toHaveLength(2);
    expect(created[0]).toMatch(/^\s*WITH u AS MATERIALIZED \(SELECT i.user_id FROM user_identities .*created AS \(\s*INSERT INTO groups .*fresh AS \(\s*INSERT INTO members .*alongside AS \(SELECT \* FROM fresh/s);
  });
});
