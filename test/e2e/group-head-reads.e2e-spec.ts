import { Client } from 'pg';
import { joinOk, postGroup } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The routes that name a group but never show its member count read it without summing the
 * member counter's unfolded deltas (GroupLookup.liveHead): on a group many players join and leave
 * at once that sum was most of an invitation create's work. Shown by holding the deltas table
 * locked: such a route answers, where one showing the count waits.
 */
let t: TestApp;
let held: Client;
beforeAll(async () => {
  t = await startTestApp();
  held = new Client({ connectionString: t.db.url });
  await held.connect();
});
afterAll(async () => {
  await held.end();
  await t.close();
});

it('invitations, roles and audit of a group answer while its member count cannot be read', async () => {
  const g = await authedGame(t);
  const groupId = (await postGroup(t, g.auth, { kind: 'guild', name: 'busy', visibility: 'public', creatorUserId: 'owner' })).id;
  await joinOk(t, g.auth, groupId, 'p1');
  await held.query('BEGIN');
  try {
    await held.query('LOCK TABLE group_member_count_deltas IN ACCESS EXCLUSIVE MODE');
    const invitation = await t.http.post(`/v1/groups/${groupId}/invitations`).set(g.auth).send({ targetUserId: 'p2', invitedByUserId: 'owner' }).timeout(5_000);
    expect(invitation.status).toBe(201);
    expect((await t.http.get(`/v1/groups/${groupId}/invitations`).set(g.auth).timeout(5_000)).body.items).toHaveLength(1);
    expect((await t.http.post(`/v1/groups/${groupId}/roles`).set(g.auth).send({ name: 'officer', priority: 10 }).timeout(5_000)).status).toBe(201);
    expect((await t.http.get(`/v1/groups/${groupId}/roles`).set(g.auth).timeout(5_000)).status).toBe(200);
    expect((await t.http.get(`/v1/groups/${groupId}/audit`).set(g.auth).timeout(5_000)).status).toBe(200);
    // The group itself shows its count, and waits for it.
    const group = t.http.get(`/v1/groups/${groupId}`).set(g.auth).then((r) => r);
    const first = await Promise.race([group.then(() => 'answered'), new Promise((r) => setTimeout(() => r('waiting'), 500))]);
    expect(first).toBe('waiting');
    await held.query('COMMIT');
    expect((await group).body.memberCount).toBe(2);
  } finally {
    await held.query('ROLLBACK');
  }
});

it('an invitation answers 404 for a group deleted or of another game, as before', async () => {
  const g = await authedGame(t);
  const other = await authedGame(t);
  const groupId = (await postGroup(t, g.auth, { kind: 'guild', name: 'gone', visibility: 'public' })).id;
  expect((await t.http.post(`/v1/groups/${groupId}/invitations`).set(other.auth).send({ targetUserId: 'p' })).status).toBe(404);
  await t.http.delete(`/v1/groups/${groupId}`).set(g.auth).expect(200);
  expect((await t.http.post(`/v1/groups/${groupId}/invitations`).set(g.auth).send({ targetUserId: 'p' })).status).toBe(404);
  expect((await t.http.get(`/v1/groups/${groupId}/roles`).set(g.auth)).status).toBe(404);
});
