import type { Counter } from 'prom-client';
import { MetricsRegistry } from '../../src/observability/metrics/metrics-registry';
import { accept as acceptRequest, friendsClient, send, U } from '../helpers/friends';
import { postGroup, postJoin } from '../helpers/groups';
import { journalEvents } from '../helpers/journal';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { inOneBatch } from '../helpers/write-batch';

/**
 * Writes with no statement to share (role assignments, permission overrides, group bans, friend
 * requests and friendships: UnitOfWork.runBatched) share a batch's transaction, each in its place
 * among the batch's writes: each answers as alone, is recorded once, and a join and a write of the
 * same member that share a batch reach the feed in the order they were made.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false', DATABASE_POOL_MAX: '2', WRITE_BATCH_MAX: '16' });
});
afterAll(() => t.close());

type Auth = Record<string, string>;

const counter = async (name: string) => (await (t.app.get(MetricsRegistry).registry.getSingleMetric(name) as Counter).get()).values[0]?.value ?? 0;
const batches = async () => ({ batches: await counter('svc_write_batches_total'), writes: await counter('svc_write_batched_writes_total') });
const memberRead = async (auth: Auth, groupId: string, userId: string) => {
  const r = await t.http.get(`/v1/groups/${groupId}/members/${userId}`).set(auth);
  return r.body;
};
async function groupWithRole(auth: Auth, name: string): Promise<{ groupId: string; roleId: string }> {
  const groupId = (await postGroup(t, auth, { kind: 'guild', name, visibility: 'public' })).id;
  const r = await t.http.post(`/v1/groups/${groupId}/roles`).set(auth).send({ name: 'officer', priority: 10 });
  expect(r.status).toBe(201);
  return { groupId, roleId: r.body.id };
}
const assign = (auth: Auth, groupId: string, userId: string, roleId: string) => t.http.post(`/v1/groups/${groupId}/members/${userId}/roles/${roleId}`).set(auth);
const unassign = (auth: Auth, groupId: string, userId: string, roleId: string) => t.http.delete(`/v1/groups/${groupId}/members/${userId}/roles/${roleId}`).set(auth);
const setOverride = (auth: Auth, groupId: string, userId: string) =>
  t.http.post(`/v1/groups/${groupId}/members/${userId}/permissions/x.batch`).set(auth).send({ allowed: true });
const clearOverride = (auth: Auth, groupId: string, userId: string) => t.http.delete(`/v1/groups/${groupId}/members/${userId}/permissions/x.batch`).set(auth);
const ban = (auth: Auth, groupId: string, userId: string) => t.http.post(`/v1/groups/${groupId}/bans`).set(auth).send({ userId, reason: 'batch' });
const unban = (auth: Auth, groupId: string, userId: string) => t.http.delete(`/v1/groups/${groupId}/bans/${userId}`).set(auth);

it('parallel role assignments, overrides and bans share transactions, each answered as alone and recorded once', async () => {
  const g = await authedGame(t);
  const groups = [await groupWithRole(g.auth, 'a'), await groupWithRole(g.auth, 'b'), await groupWithRole(g.auth, 'c'), await groupWithRole(g.auth, 'd')];
  const members = Array.from({ length: 16 }, (_, i) => ({ userId: `m${i}`, ...groups[i % groups.length] }));
  const banned = Array.from({ length: 8 }, (_, i) => ({ userId: `b${i}`, ...groups[i % groups.length] }));
  for (const m of members) expect((await postJoin(t, g.auth, m.groupId, { userId: m.userId })).status).toBe(201);
  const before = await batches();

  const made = await Promise.all([
    ...members.map((m) => assign(g.auth, m.groupId, m.userId, m.roleId)),
    ...members.map((m) => setOverride(g.auth, m.groupId, m.userId)),
    ...banned.map((b) => ban(g.auth, b.groupId, b.userId)),
  ]);
  for (const [i, m] of members.entries()) {
    expect(made[i].status).toBe(200);
    expect(made[i].body.roles).toContain(m.roleId);
    expect(made[members.length + i].status).toBe(200);
    expect(made[members.length + i].body).toMatchObject({ permission: 'x.batch', allowed: true });
  }
  for (const [i, b] of banned.entries()) {
    const r = made[2 * members.length + i];
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ userId: b.userId, status: 'banned' });
  }

  const undone = await Promise.all([
    ...members.map((m) => unassign(g.auth, m.groupId, m.userId, m.roleId)),
    ...members.map((m) => clearOverride(g.auth, m.groupId, m.userId)),
    ...banned.map((b) => unban(g.auth, b.groupId, b.userId)),
  ]);
  for (const [i, m] of members.entries()) {
    expect(undone[i].status).toBe(200);
    expect(undone[i].body).toEqual(await memberRead(g.auth, m.groupId, m.userId));
    expect(undone[i].body.roles).not.toContain(m.roleId);
    expect(undone[members.length + i].status).toBe(204);
  }
  for (const i of banned.keys()) {
    expect(undone[2 * members.length + i].status).toBe(200);
    expect(undone[2 * members.length + i].body.status).toBe('left');
  }

  const after = await batches();
  // Some transaction served several of them.
  expect(after.writes - before.writes).toBeGreaterThan(after.batches - before.batches);
  const recorded = await t.db.query<{ action: string; n: number }>(
    `SELECT a.action, count(*)::int AS n FROM journal a WHERE a.game_id = $1 AND a.action IN ('member.role.assigned', 'member.role.removed', 'permission.override.set', 'permission.override.cleared', 'member.banned', 'member.unbanned') GROUP BY 1 ORDER BY 1`,
    [g.gameId],
  );
  expect(recorded).toEqual([
    { action: 'member.banned', n: 8 },
    { action: 'member.role.assigned', n: 16 },
    { action: 'member.role.removed', n: 16 },
    { action: 'member.unbanned', n: 8 },
    { action: 'permission.override.cleared', n: 16 },
    { action: 'permission.override.set', n: 16 },
  ]);
});

it('parallel friend requests sent, accepted and removed share transactions beside invitations accepted, each answered as alone and recorded once', async () => {
  const g = await authedGame(t);
  const before = await batches();
  const created = await Promise.all(
    Array.from({ length: 12 }, (_, i) => postGroup(t, g.auth, { kind: 'guild', name: `c${i}`, visibility: 'invite-only', creatorUserId: `c${i}` })),
  );
  const groups = created.map((c) => c.id as string);
  const invited = await Promise.all(groups.map((groupId, i) => t.http.post(`/v1/groups/${groupId}/invitations`).set(g.auth).send({ targetUserId: `i${i}` })));
  for (const r of invited) expect(r.status).toBe(201);
  const accepted = await Promise.all(invited.map((r, i) => t.http.post(`/v1/invitations/${r.body.code}/accept`).set(g.auth).send({ userId: `i${i}` })));
  for (const [i, r] of accepted.entries()) {
    expect(r.status).toBe(201);
    expect(r.body).toEqual(await memberRead(g.auth, groups[i], `i${i}`));
    expect((await t.http.get(`/v1/groups/${groups[i]}`).set(g.auth)).body.memberCount).toBe(2);
  }

  const f = friendsClient(t, g.gameId, g.key);
  const pairs = Array.from({ length: 12 }, (_, i) => [`fa${i}`, `fb${i}`] as const);
  const sentRequests = await Promise.all(pairs.map(([a, b]) => send(f, a, b)));
  for (const r of sentRequests) expect(r.status).toBe(201);
  const acceptedRequests = await Promise.all(sentRequests.map((r) => acceptRequest(f, r.body.request.id)));
  for (const r of acceptedRequests) expect(r.body.status).toBe('accepted');
  const removed = await Promise.all(pairs.map(([a, b]) => f.del(`${U(a)}/friends/${b}`)));
  for (const r of removed) expect(r.status).toBe(204);

  const after = await batches();
  expect(after.writes - before.writes).toBeGreaterThan(after.batches - before.batches);
  const recorded = await t.db.query<{ type: string; n: number }>(
    `SELECT e.type, count(*)::int AS n FROM ${journalEvents()} WHERE e.game_id = $1 AND e.type IN ('group.created', 'invitation.created', 'member.joined', 'friend.request.sent', 'friend.request.accepted', 'friend.removed') GROUP BY 1 ORDER BY 1`,
    [g.gameId],
  );
  expect(recorded).toEqual([
    { type: 'friend.removed', n: 12 },
    { type: 'friend.request.accepted', n: 12 },
    { type: 'friend.request.sent', n: 12 },
    { type: 'group.created', n: 12 },
    { type: 'invitation.created', n: 12 },
    { type: 'member.joined', n: 24 },
  ]);
});

it('a role assigned just before the join that makes its member, in one batch, runs before it: refused, or after it in the feed', async () => {
  const g = await authedGame(t);
  const busy = (await postGroup(t, g.auth, { kind: 'guild', name: 'busy', visibility: 'public' })).id;
  const { groupId, roleId } = await groupWithRole(g.auth, 'e');
  // Players the game knows: a join makes their member row in its shared statement, before any write's rest.
  const scratch = (await postGroup(t, g.auth, { kind: 'guild', name: 'scratch', visibility: 'public' })).id;
  for (let round = 0; round < 3; round++) {
    expect((await postJoin(t, g.auth, scratch, { userId: `p${round}` })).status).toBe(201);
    expect((await t.http.post(`/v1/groups/${scratch}/leave`).set(g.auth).send({ userId: `p${round}` })).status).toBe(200);
  }
  for (let round = 0; round < 3; round++) {
    // The assignment then the join go as one batch.
    const userId = `p${round}`;
    const [a, j] = await inOneBatch(t, g.auth, busy, [() => assign(g.auth, groupId, userId, roleId), () => postJoin(t, g.auth, groupId, { userId })]);
    expect(j.status).toBe(201);
    expect([200, 404]).toContain(a.status);
    const types = await t.db.query<{ type: string }>(
      `SELECT e.type FROM ${journalEvents()} WHERE e.game_id = $1 AND e.group_id = $3 AND e.body->'member'->>'userId' = $2 ORDER BY e.era, e.xid, e.seq`,
      [g.gameId, userId, groupId],
    );
    expect(types.map((r) => r.type)).toEqual(a.status === 200 ? ['member.joined', 'member.updated'] : ['member.joined']);
    expect((await memberRead(g.auth, groupId, userId)).roles.includes(roleId)).toBe(a.status === 200);
  }
});

