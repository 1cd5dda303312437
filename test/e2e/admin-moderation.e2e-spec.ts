import { randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { expectError } from '../helpers/errors';
import { joinOk, postGroup } from '../helpers/groups';
import { journalAudit, journalEvents } from '../helpers/journal';
import { asAdmin, authedGame, bearer, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Moderation through the admin routes (docs/concepts/admin.md): kicks, group and game-wide bans,
 * join request decisions, a group's soft delete and restore, in the path's game, through the game
 * routes' services. Each change writes the game's own audit entry and event as the game route
 * does (with no actor user), and an operator audit entry naming who did it; a repeat that changes
 * nothing writes neither. A viewer is refused with 403 and nothing changes.
 */
let t: TestApp;
type Auth = Record<string, string>;
type Caller = { auth: Auth; name: string; id: string | null };

let root: Caller;
let moderator: Caller;
let viewer: Auth;

beforeAll(async () => {
  t = await startTestApp();
  const made = async (name: string, role: string) => {
    const r = await t.http.post('/v1/admin/operators').set(asAdmin).send({ name, role });
    if (r.status !== 201) throw new Error(`create operator: ${r.status} ${r.text}`);
    return r.body as { id: string; token: string };
  };
  const mia = await made('Mia (moderation)', 'moderator');
  const vic = await made('Vic (viewer)', 'viewer');
  root = { auth: asAdmin, name: 'root', id: null };
  moderator = { auth: bearer(mia.token), name: 'Mia (moderation)', id: mia.id };
  viewer = bearer(vic.token);
});
afterAll(() => t.close());

const A = (gameId: string) => `/v1/admin/games/${gameId}`;

async function ok(req: PromiseLike<Response>, status = 200): Promise<Response> {
  const r = await req;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status} ${r.text}`);
  return r;
}

function notFound(r: Response, what: string): void {
  expectError(r, 404, 'not_found');
  expect(r.body.message).toBe(`${what} not found`);
}

interface OperatorEntry {
  operatorId: string | null;
  operatorName: string;
  action: string;
  gameId: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
}

/** The operator audit entries of `action` in the game, newest first, read through the admin route. */
async function operatorEntries(gameId: string, action: string): Promise<OperatorEntry[]> {
  const r = await ok(t.http.get('/v1/admin/operator-audit').query({ action, limit: '100' }).set(asAdmin));
  return (r.body.items as OperatorEntry[]).filter((e) => e.gameId === gameId);
}

interface AuditRow {
  group_id: string | null;
  actor_user_id: string | null;
  target_id: string | null;
  payload: Record<string, unknown>;
}

const auditRows = (gameId: string, action: string) =>
  t.db.query<AuditRow>(`SELECT group_id, actor_user_id, target_id, payload FROM ${journalAudit()} WHERE game_id = $1 AND action = $2 ORDER BY created_at, id`, [gameId, action]);

const eventBodies = async (gameId: string, type: string) =>
  (await t.db.query<{ body: Record<string, unknown> }>(`SELECT body FROM ${journalEvents()} WHERE game_id = $1 AND type = $2 ORDER BY created_at, id`, [gameId, type])).map(
    (r) => r.body,
  );

/** How many audit entries, events and operator audit entries the game has: unchanged by a refusal. */
async function traces(gameId: string): Promise<number[]> {
  const [row] = await t.db.query<{ audit: number; events: number; ops: number }>(
    `SELECT (SELECT count(*) FROM ${journalAudit()} WHERE game_id = $1)::int AS audit,
            (SELECT count(*) FROM ${journalEvents()} WHERE game_id = $1)::int AS events,
            (SELECT count(*) FROM operator_audit WHERE game_id = $1)::int AS ops`,
    [gameId],
  );
  return [row.audit, row.events, row.ops];
}

function expectOperatorEntry(entry: OperatorEntry | undefined, by: Caller, want: Partial<OperatorEntry>): void {
  expect(entry).toMatchObject({ operatorId: by.id, operatorName: by.name, ...want });
}

async function memberOf(auth: Auth, groupId: string, userId: string): Promise<{ status: string }> {
  return (await ok(t.http.get(`/v1/groups/${groupId}/members/${userId}`).set(auth))).body;
}

describe('POST /v1/admin/games/:gameId/groups/:groupId/members/:userId/kick', () => {
  it.each(['root', 'moderator'])('kicks as the game route does, audited with the operator (%s); a repeat writes nothing', async (who) => {
    const by = who === 'root' ? root : moderator;
    const g = await authedGame(t);
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Kicks', visibility: 'public' });
    await joinOk(t, g.auth, group.id, 'ann');
    const r = await ok(t.http.post(`${A(g.gameId)}/groups/${group.id}/members/ann/kick`).set(by.auth).send({ reason: 'spam' }));
    expect(r.body).toMatchObject({ userId: 'ann', groupId: group.id, status: 'kicked' });
    expect((await memberOf(g.auth, group.id, 'ann')).status).toBe('kicked');

    const [audit] = await auditRows(g.gameId, 'member.kicked');
    expect(audit).toMatchObject({ group_id: group.id, actor_user_id: null, target_id: 'ann', payload: { memberId: r.body.id, reason: 'spam' } });
    const [event] = await eventBodies(g.gameId, 'member.kicked');
    expect(event).toMatchObject({ groupId: group.id, reason: 'spam', member: { userId: 'ann', status: 'kicked' } });
    const entries = await operatorEntries(g.gameId, 'member.kicked');
    expect(entries).toHaveLength(1);
    expectOperatorEntry(entries[0], by, { gameId: g.gameId, targetId: 'ann', details: { groupId: group.id, memberId: r.body.id, reason: 'spam' } });

    const again = await ok(t.http.post(`${A(g.gameId)}/groups/${group.id}/members/ann/kick`).set(by.auth));
    expect(again.body.status).toBe('kicked');
    expect(await auditRows(g.gameId, 'member.kicked')).toHaveLength(1);
    expect(await operatorEntries(g.gameId, 'member.kicked')).toHaveLength(1);
  });

  it("refuses the owner while others remain (409): neither the kick nor its operator entry happens", async () => {
    const g = await authedGame(t);
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Owned', visibility: 'public', creatorUserId: 'olga' });
    await joinOk(t, g.auth, group.id, 'ann');
    const before = await traces(g.gameId);
    expectError(await t.http.post(`${A(g.gameId)}/groups/${group.id}/members/olga/kick`).set(asAdmin).send({}), 409, 'owner_must_transfer');
    expect((await memberOf(g.auth, group.id, 'olga')).status).toBe('active');
    expect(await traces(g.gameId)).toEqual(before);
  });

  it('400 naming the field for a bad reason', async () => {
    const g = await authedGame(t);
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Kicks', visibility: 'public' });
    await joinOk(t, g.auth, group.id, 'ann');
    const r = await t.http.post(`${A(g.gameId)}/groups/${group.id}/members/ann/kick`).set(asAdmin).send({ reason: 'x'.repeat(501) });
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toMatch(/^reason/);
    expect((await memberOf(g.auth, group.id, 'ann')).status).toBe('active');
  });
});

describe('group bans: POST and DELETE /v1/admin/games/:gameId/groups/:groupId/bans', () => {
  it.each(['root', 'moderator'])('bans and lifts as the game routes do, each audited with the operator (%s)', async (who) => {
    const by = who === 'root' ? root : moderator;
    const g = await authedGame(t);
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Bans', visibility: 'public' });
    await joinOk(t, g.auth, group.id, 'bob');
    const banned = await ok(t.http.post(`${A(g.gameId)}/groups/${group.id}/bans`).set(by.auth).send({ userId: 'bob', reason: 'cheating' }), 201);
    expect(banned.body).toMatchObject({ userId: 'bob', status: 'banned', bannedUntil: null });
    expect((await memberOf(g.auth, group.id, 'bob')).status).toBe('banned');
    const [audit] = await auditRows(g.gameId, 'member.banned');
    expect(audit).toMatchObject({ group_id: group.id, actor_user_id: null, target_id: 'bob', payload: { memberId: banned.body.id, reason: 'cheating' } });
    expect(await eventBodies(g.gameId, 'member.banned')).toEqual([expect.objectContaining({ groupId: group.id, reason: 'cheating' })]);
    const [added] = await operatorEntries(g.gameId, 'group.ban_added');
    expectOperatorEntry(added, by, { gameId: g.gameId, targetId: 'bob', details: { groupId: group.id, memberId: banned.body.id, reason: 'cheating', expiresAt: null } });

    const lifted = await t.http.delete(`${A(g.gameId)}/groups/${group.id}/bans/bob`).set(by.auth);
    expect(lifted.status).toBe(204);
    expect(lifted.text).toBe('');
    expect((await memberOf(g.auth, group.id, 'bob')).status).toBe('left');
    expect(await auditRows(g.gameId, 'member.unbanned')).toEqual([expect.objectContaining({ group_id: group.id, actor_user_id: null, target_id: 'bob' })]);
    expect(await eventBodies(g.gameId, 'member.unbanned')).toHaveLength(1);
    const removed = await operatorEntries(g.gameId, 'group.ban_removed');
    expect(removed).toHaveLength(1);
    expectOperatorEntry(removed[0], by, { gameId: g.gameId, targetId: 'bob', details: { groupId: group.id, memberId: banned.body.id } });

    notFound(await t.http.delete(`${A(g.gameId)}/groups/${group.id}/bans/bob`).set(by.auth), 'group ban');
    expect(await operatorEntries(g.gameId, 'group.ban_removed')).toHaveLength(1);
  });

  it('takes the game route body without a player as moderator: actorUserId and unknown fields are 400', async () => {
    const g = await authedGame(t);
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Bans', visibility: 'public' });
    for (const body of [{ userId: 'bob', actorUserId: 'mod' }, { userId: 'bob', extra: 1 }, { userId: '' }, { userId: 'bob', expiresAt: 'soon' }]) {
      expectError(await t.http.post(`${A(g.gameId)}/groups/${group.id}/bans`).set(asAdmin).send(body), 400, 'bad_request');
    }
    expect(await operatorEntries(g.gameId, 'group.ban_added')).toEqual([]);
  });
});

describe('game-wide bans: POST and DELETE /v1/admin/games/:gameId/bans', () => {
  it.each(['root', 'moderator'])('bans and lifts as POST and DELETE /v1/bans do, each audited with the operator (%s)', async (who) => {
    const by = who === 'root' ? root : moderator;
    const g = await authedGame(t);
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const banned = await ok(t.http.post(`${A(g.gameId)}/bans`).set(by.auth).send({ userId: 'cat', reason: 'abuse', expiresAt }), 201);
    expect(banned.body).toMatchObject({ gameId: g.gameId, userId: 'cat', reason: 'abuse', expiresAt, bannedBy: null });
    expect((await ok(t.http.get('/v1/bans/cat').set(g.auth))).body).toEqual(banned.body);
    expect(await auditRows(g.gameId, 'game.user.banned')).toEqual([
      expect.objectContaining({ group_id: null, actor_user_id: null, target_id: 'cat', payload: { banId: banned.body.id, reason: 'abuse', expiresAt } }),
    ]);
    expect(await eventBodies(g.gameId, 'game.user.banned')).toEqual([expect.objectContaining({ svcUserId: 'cat', reason: 'abuse', expiresAt })]);
    const [added] = await operatorEntries(g.gameId, 'game.ban_added');
    expectOperatorEntry(added, by, { gameId: g.gameId, targetId: 'cat', details: { banId: banned.body.id, reason: 'abuse', expiresAt } });

    const lifted = await t.http.delete(`${A(g.gameId)}/bans/cat`).set(by.auth);
    expect(lifted.status).toBe(204);
    notFound(await t.http.get('/v1/bans/cat').set(g.auth), 'ban');
    expect(await auditRows(g.gameId, 'game.user.unbanned')).toEqual([expect.objectContaining({ actor_user_id: null, target_id: 'cat', payload: { banId: banned.body.id } })]);
    expect(await eventBodies(g.gameId, 'game.user.unbanned')).toEqual([expect.objectContaining({ svcUserId: 'cat' })]);
    const removed = await operatorEntries(g.gameId, 'game.ban_removed');
    expect(removed).toHaveLength(1);
    expectOperatorEntry(removed[0], by, { gameId: g.gameId, targetId: 'cat', details: { banId: banned.body.id } });

    notFound(await t.http.delete(`${A(g.gameId)}/bans/cat`).set(by.auth), 'ban');
    expect(await operatorEntries(g.gameId, 'game.ban_removed')).toHaveLength(1);
  });

  it('400 for a body the game route refuses, actorUserId included', async () => {
    const g = await authedGame(t);
    const before = await traces(g.gameId);
    for (const body of [{ userId: 'cat', actorUserId: 'mod' }, { userId: 'cat', nope: true }, {}, { userId: 'cat', reason: 'x'.repeat(501) }]) {
      expectError(await t.http.post(`${A(g.gameId)}/bans`).set(asAdmin).send(body), 400, 'bad_request');
    }
    expect(await traces(g.gameId)).toEqual(before);
  });
});

describe('join requests: the admin list, approve and decline', () => {
  async function inviteOnlyWithRequests(auth: Auth, ...userIds: string[]): Promise<{ groupId: string; ids: string[] }> {
    const group = await postGroup(t, auth, { kind: 'guild', name: 'Closed', visibility: 'invite-only' });
    const ids: string[] = [];
    for (const userId of userIds) ids.push((await ok(t.http.post(`/v1/groups/${group.id}/join-requests`).set(auth).send({ userId, message: 'hi' }), 201)).body.id);
    return { groupId: group.id, ids };
  }

  it("lists as the game route does (a viewer may), with status, limit and cursor", async () => {
    const g = await authedGame(t);
    const { groupId } = await inviteOnlyWithRequests(g.auth, 'u1', 'u2', 'u3');
    const mine = await ok(t.http.get(`/v1/groups/${groupId}/join-requests`).set(g.auth));
    const theirs = await ok(t.http.get(`${A(g.gameId)}/groups/${groupId}/join-requests`).set(viewer));
    expect(theirs.body).toEqual(mine.body);
    expect(theirs.body.items.map((r: { userId: string }) => r.userId)).toEqual(['u3', 'u2', 'u1']);
    const first = await ok(t.http.get(`${A(g.gameId)}/groups/${groupId}/join-requests`).query({ limit: '2', status: 'all' }).set(viewer));
    expect(first.body.items).toHaveLength(2);
    const rest = await ok(t.http.get(`${A(g.gameId)}/groups/${groupId}/join-requests`).query({ limit: '2', status: 'all', cursor: first.body.nextCursor }).set(viewer));
    expect(rest.body).toEqual({ items: [expect.objectContaining({ userId: 'u1' })], nextCursor: null });
    expectError(await t.http.get(`${A(g.gameId)}/groups/${groupId}/join-requests`).query({ status: 'maybe' }).set(viewer), 400, 'bad_request');
    expectError(await t.http.get(`${A(g.gameId)}/groups/${groupId}/join-requests`).query({ cursor: 'nope' }).set(viewer), 400, 'bad_request');
  });

  it.each(['root', 'moderator'])('approves as the game route does with no player as decider, audited with the operator (%s)', async (who) => {
    const by = who === 'root' ? root : moderator;
    const g = await authedGame(t);
    const { groupId, ids } = await inviteOnlyWithRequests(g.auth, 'dan');
    const r = await ok(t.http.post(`${A(g.gameId)}/join-requests/${ids[0]}/approve`).set(by.auth));
    expect(r.body.joinRequest).toMatchObject({ id: ids[0], status: 'approved', decidedByUserId: null });
    expect(r.body.member).toMatchObject({ userId: 'dan', groupId, status: 'active' });
    expect((await memberOf(g.auth, groupId, 'dan')).status).toBe('active');
    expect(await auditRows(g.gameId, 'join_request.approved')).toEqual([
      expect.objectContaining({ group_id: groupId, actor_user_id: null, target_id: 'dan', payload: { joinRequestId: ids[0], memberId: r.body.member.id } }),
    ]);
    expect(await eventBodies(g.gameId, 'member.joined')).toEqual([expect.objectContaining({ groupId, member: expect.objectContaining({ userId: 'dan' }) })]);
    const entries = await operatorEntries(g.gameId, 'join_request.approved');
    expect(entries).toHaveLength(1);
    expectOperatorEntry(entries[0], by, { gameId: g.gameId, targetId: ids[0], details: { groupId, userId: 'dan', memberId: r.body.member.id } });

    expectError(await t.http.post(`${A(g.gameId)}/join-requests/${ids[0]}/approve`).set(by.auth), 410, 'join_request_closed');
    expect(await operatorEntries(g.gameId, 'join_request.approved')).toHaveLength(1);
  });

  it.each(['root', 'moderator'])('declines as the game route does with the reason and no player as decider, audited with the operator (%s)', async (who) => {
    const by = who === 'root' ? root : moderator;
    const g = await authedGame(t);
    const { groupId, ids } = await inviteOnlyWithRequests(g.auth, 'eve');
    // A player named as decider is not taken: the operator decides.
    const r = await ok(t.http.post(`${A(g.gameId)}/join-requests/${ids[0]}/decline`).set(by.auth).send({ reason: 'full roster', actorUserId: 'officer' }));
    expect(r.body).toMatchObject({ id: ids[0], userId: 'eve', status: 'declined', decidedByUserId: null });
    expect(await auditRows(g.gameId, 'join_request.declined')).toEqual([
      expect.objectContaining({ group_id: groupId, actor_user_id: null, target_id: 'eve', payload: { joinRequestId: ids[0], reason: 'full roster' } }),
    ]);
    expect(await eventBodies(g.gameId, 'join_request.declined')).toEqual([expect.objectContaining({ reason: 'full roster', joinRequest: expect.objectContaining({ id: ids[0] }) })]);
    const entries = await operatorEntries(g.gameId, 'join_request.declined');
    expect(entries).toHaveLength(1);
    expectOperatorEntry(entries[0], by, { gameId: g.gameId, targetId: ids[0], details: { groupId, userId: 'eve', reason: 'full roster' } });
    const [identity] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM user_identities WHERE game_id = $1 AND external_id = $2', [g.gameId, 'officer']);
    expect(identity.n).toBe(0);

    expectError(await t.http.post(`${A(g.gameId)}/join-requests/${ids[0]}/decline`).set(by.auth), 410, 'join_request_closed');
    expect(await operatorEntries(g.gameId, 'join_request.declined')).toHaveLength(1);
  });

  it('a decline without a body records no reason; a bad reason is 400 naming it', async () => {
    const g = await authedGame(t);
    const { ids } = await inviteOnlyWithRequests(g.auth, 'fay', 'gus');
    const bad = await t.http.post(`${A(g.gameId)}/join-requests/${ids[0]}/decline`).set(asAdmin).send({ reason: 'x'.repeat(501) });
    expectError(bad, 400, 'bad_request');
    expect(bad.body.message).toMatch(/^reason/);
    const r = await ok(t.http.post(`${A(g.gameId)}/join-requests/${ids[1]}/decline`).set(asAdmin));
    expect(r.body.status).toBe('declined');
    const [entry] = await operatorEntries(g.gameId, 'join_request.declined');
    expect(entry.details).toEqual({ groupId: expect.any(String), userId: 'gus', reason: null });
  });
});

describe('DELETE /v1/admin/games/:gameId/groups/:groupId and POST .../restore', () => {
  it.each(['root', 'moderator'])('soft-deletes and restores as the game routes do, each audited with the operator (%s)', async (who) => {
    const by = who === 'root' ? root : moderator;
    const g = await authedGame(t);
    const group = await postGroup<{ id: string; name: string }>(t, g.auth, { kind: 'guild', name: 'Doomed' });
    const deleted = await ok(t.http.delete(`${A(g.gameId)}/groups/${group.id}`).set(by.auth));
    expect(deleted.body).toMatchObject({ id: group.id, softDeletedAt: expect.any(String) });
    notFound(await t.http.get(`/v1/groups/${group.id}`).set(g.auth), 'group');
    expect(await auditRows(g.gameId, 'group.deleted')).toEqual([expect.objectContaining({ group_id: group.id, actor_user_id: null, target_id: group.id, payload: expect.objectContaining({ kind: 'soft' }) })]);
    expect(await eventBodies(g.gameId, 'group.deleted')).toEqual([expect.objectContaining({ kind: 'soft', groupId: group.id })]);
    const [del] = await operatorEntries(g.gameId, 'group.deleted');
    expectOperatorEntry(del, by, { gameId: g.gameId, targetId: group.id, details: { name: 'Doomed', kind: 'soft', softDeletedAt: deleted.body.softDeletedAt } });

    // Already deleted: answered as is, nothing written.
    const again = await ok(t.http.delete(`${A(g.gameId)}/groups/${group.id}`).set(by.auth));
    expect(again.body.softDeletedAt).toBe(deleted.body.softDeletedAt);
    expect(await operatorEntries(g.gameId, 'group.deleted')).toHaveLength(1);
    expect(await auditRows(g.gameId, 'group.deleted')).toHaveLength(1);

    const restored = await ok(t.http.post(`${A(g.gameId)}/groups/${group.id}/restore`).set(by.auth));
    expect(restored.body).toMatchObject({ id: group.id, softDeletedAt: null });
    await ok(t.http.get(`/v1/groups/${group.id}`).set(g.auth));
    expect(await auditRows(g.gameId, 'group.restored')).toEqual([expect.objectContaining({ group_id: group.id, actor_user_id: null, target_id: group.id })]);
    expect(await eventBodies(g.gameId, 'group.restored')).toHaveLength(1);
    const restores = await operatorEntries(g.gameId, 'group.restored');
    expect(restores).toHaveLength(1);
    expectOperatorEntry(restores[0], by, { gameId: g.gameId, targetId: group.id, details: { name: 'Doomed', previousSoftDeletedAt: deleted.body.softDeletedAt } });

    await ok(t.http.post(`${A(g.gameId)}/groups/${group.id}/restore`).set(by.auth));
    expect(await operatorEntries(g.gameId, 'group.restored')).toHaveLength(1);
  });

  it('offers no hard delete: hard=true still soft-deletes, and the group can be restored', async () => {
    const g = await authedGame(t);
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Kept' });
    const r = await ok(t.http.delete(`${A(g.gameId)}/groups/${group.id}`).query({ hard: 'true' }).set(asAdmin));
    expect(r.body.softDeletedAt).toEqual(expect.any(String));
    expect(await t.db.query('SELECT id FROM groups WHERE id = $1', [group.id])).toHaveLength(1);
    await ok(t.http.post(`${A(g.gameId)}/groups/${group.id}/restore`).set(asAdmin));
  });
});

describe('the operator entry and the change are one transaction', () => {
  // A trigger that refuses operator audit rows of one game: the change must fail with it.
  beforeAll(async () => {
    await t.db.query(`CREATE TABLE refuse_operator_audit (game_id uuid PRIMARY KEY)`);
    await t.db.query(`CREATE FUNCTION refuse_operator_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM refuse_operator_audit r WHERE r.game_id = NEW.game_id) THEN RAISE EXCEPTION 'operator audit refused'; END IF;
        RETURN NEW;
      END $$`);
    await t.db.query(`CREATE TRIGGER refuse_operator_audit BEFORE INSERT ON operator_audit FOR EACH ROW EXECUTE FUNCTION refuse_operator_audit()`);
  });
  afterAll(async () => {
    await t.db.query('DROP TRIGGER refuse_operator_audit ON operator_audit');
    await t.db.query('DROP FUNCTION refuse_operator_audit()');
    await t.db.query('DROP TABLE refuse_operator_audit');
  });

  it('an operator entry that cannot be written undoes the change: no kick, ban, decision or delete, no game audit, no event', async () => {
    const g = await authedGame(t);
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Atomic', visibility: 'public' });
    await joinOk(t, g.auth, group.id, 'ann');
    const closed = await postGroup(t, g.auth, { kind: 'guild', name: 'Closed', visibility: 'invite-only' });
    const request = (await ok(t.http.post(`/v1/groups/${closed.id}/join-requests`).set(g.auth).send({ userId: 'dan' }), 201)).body.id as string;
    await t.db.query('INSERT INTO refuse_operator_audit (game_id) VALUES ($1)', [g.gameId]);
    const before = await traces(g.gameId);
    const p = A(g.gameId);
    for (const req of [
      t.http.post(`${p}/groups/${group.id}/members/ann/kick`).set(asAdmin),
      t.http.post(`${p}/groups/${group.id}/bans`).set(asAdmin).send({ userId: 'ann' }),
      t.http.post(`${p}/bans`).set(asAdmin).send({ userId: 'ann' }),
      t.http.post(`${p}/join-requests/${request}/approve`).set(asAdmin),
      t.http.delete(`${p}/groups/${group.id}`).set(asAdmin),
    ]) {
      expectError(await req, 500, 'internal');
    }
    expect(await traces(g.gameId)).toEqual(before);
    expect((await memberOf(g.auth, group.id, 'ann')).status).toBe('active');
    notFound(await t.http.get('/v1/bans/ann').set(g.auth), 'ban');
    expect((await ok(t.http.get(`/v1/groups/${closed.id}/join-requests`).set(g.auth))).body.items).toEqual([expect.objectContaining({ id: request, status: 'pending' })]);
    await ok(t.http.get(`/v1/groups/${group.id}`).set(g.auth));
  });
});

describe("a player's erasure", () => {
  it('pseudonymises the operator entries naming them, by target or in the details', async () => {
    const g = await authedGame(t);
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Forgetful', visibility: 'public' });
    await joinOk(t, g.auth, group.id, 'zoe');
    const p = A(g.gameId);
    await ok(t.http.post(`${p}/groups/${group.id}/members/zoe/kick`).set(moderator.auth));
    const closed = await postGroup(t, g.auth, { kind: 'guild', name: 'Closed', visibility: 'invite-only' });
    const request = (await ok(t.http.post(`/v1/groups/${closed.id}/join-requests`).set(g.auth).send({ userId: 'zoe' }), 201)).body.id as string;
    await ok(t.http.post(`${p}/join-requests/${request}/decline`).set(moderator.auth).send({ reason: 'no' }));
    await ok(t.http.post(`${p}/bans`).set(moderator.auth).send({ userId: 'zoe' }), 201);
    const erased = await ok(t.http.delete(`${p}/users/zoe`).set(moderator.auth));
    const pseudonym = erased.body.pseudonym as string;
    const entries = (await ok(t.http.get('/v1/admin/operator-audit').query({ limit: '100' }).set(asAdmin))).body.items.filter(
      (e: OperatorEntry) => e.gameId === g.gameId && e.action !== 'user.erased',
    ) as OperatorEntry[];
    expect(entries.map((e) => e.action).sort()).toEqual(['api_key.minted', 'game.ban_added', 'game.created', 'join_request.declined', 'member.kicked']);
    expect(JSON.stringify(entries)).not.toContain('"zoe"');
    expect(entries.find((e) => e.action === 'member.kicked')?.targetId).toBe(pseudonym);
    expect(entries.find((e) => e.action === 'game.ban_added')?.targetId).toBe(pseudonym);
    expect(entries.find((e) => e.action === 'join_request.declined')).toMatchObject({ targetId: request, details: { userId: pseudonym } });
  });
});

describe('a user id as long as the spec allows (16,384 characters, incompressible)', () => {
  // Random letters do not compress, so the operator entry holds every byte of the id: more than a
  // b-tree entry may (about 2,700 bytes), which made these actions fail whole with a 500.
  const longId = () => randomBytes(12_288).toString('base64url');

  it('is kicked, banned and unbanned, exported and erased through the admin routes, each with its operator entry', async () => {
    const g = await authedGame(t);
    const id = longId();
    expect(id).toHaveLength(16_384);
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Long names', visibility: 'public' });
    await joinOk(t, g.auth, group.id, id);
    const p = A(g.gameId);

    await ok(t.http.post(`${p}/groups/${group.id}/members/${id}/kick`).set(moderator.auth));
    await ok(t.http.post(`${p}/bans`).set(moderator.auth).send({ userId: id, reason: 'spam' }), 201);
    expect((await t.http.delete(`${p}/bans/${id}`).set(moderator.auth)).status).toBe(204);
    await ok(t.http.post(`${p}/bans`).set(moderator.auth).send({ userId: id }), 201);
    expect((await ok(t.http.get(`${p}/users/${id}/export`).set(moderator.auth))).body.userId).toBe(id);
    for (const action of ['member.kicked', 'game.ban_added', 'game.ban_removed']) {
      expect((await operatorEntries(g.gameId, action)).map((e) => e.targetId)).toContain(id);
    }

    const pseudonym = (await ok(t.http.delete(`${p}/users/${id}`).set(moderator.auth))).body.pseudonym as string;
    const byTarget = (target: string) =>
      t.db.query<{ action: string }>('SELECT action FROM operator_audit WHERE game_id = $1 AND target_id = $2 ORDER BY action', [g.gameId, target]);
    expect(await byTarget(id)).toEqual([]);
    expect((await byTarget(pseudonym)).map((e) => e.action)).toEqual([
      'game.ban_added',
      'game.ban_added',
      'game.ban_removed',
      'member.kicked',
      'user.erased',
      'user.exported',
    ]);
  });
});

describe('roles and missing things', () => {
  /** A game with one of everything the moderation routes act on, and each route's request. */
  async function arranged() {
    const g = await authedGame(t);
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Arranged', visibility: 'public' });
    await joinOk(t, g.auth, group.id, 'ann');
    await ok(t.http.post(`/v1/groups/${group.id}/bans`).set(g.auth).send({ userId: 'bob' }), 201);
    await ok(t.http.post('/v1/bans').set(g.auth).send({ userId: 'cat' }), 201);
    const closed = await postGroup(t, g.auth, { kind: 'guild', name: 'Closed', visibility: 'invite-only' });
    const request = (await ok(t.http.post(`/v1/groups/${closed.id}/join-requests`).set(g.auth).send({ userId: 'dan' }), 201)).body.id as string;
    const p = A(g.gameId);
    const mutations = (groupId: string, joinRequestId: string, users: { member: string; grouped: string; banned: string }) => [
      ['post', `${p}/groups/${groupId}/members/${users.member}/kick`, {}],
      ['post', `${p}/groups/${groupId}/bans`, { userId: 'eve' }],
      ['delete', `${p}/groups/${groupId}/bans/${users.grouped}`, undefined],
      ['post', `${p}/bans`, { userId: 'eve' }],
      ['delete', `${p}/bans/${users.banned}`, undefined],
      ['post', `${p}/join-requests/${joinRequestId}/approve`, undefined],
      ['post', `${p}/join-requests/${joinRequestId}/decline`, {}],
      ['delete', `${p}/groups/${groupId}`, undefined],
      ['post', `${p}/groups/${groupId}/restore`, undefined],
    ] as const;
    return { g, group, closed, request, mutations };
  }

  const send = (method: 'post' | 'delete', path: string, body: object | undefined, auth: Auth) => {
    const req = t.http[method](path).set(auth);
    return body === undefined ? req : req.send(body);
  };

  it('a viewer gets 403 permission_denied on every mutation, and nothing changes', async () => {
    const { g, group, closed, request, mutations } = await arranged();
    const before = await traces(g.gameId);
    for (const [method, path, body] of mutations(group.id, request, { member: 'ann', grouped: 'bob', banned: 'cat' })) {
      const r = await send(method, path, body, viewer);
      expectError(r, 403, 'permission_denied');
      expect(r.body.message).toContain('moderator');
    }
    expect(await traces(g.gameId)).toEqual(before);
    expect((await memberOf(g.auth, group.id, 'ann')).status).toBe('active');
    expect((await memberOf(g.auth, group.id, 'bob')).status).toBe('banned');
    await ok(t.http.get('/v1/bans/cat').set(g.auth));
    notFound(await t.http.get('/v1/bans/eve').set(g.auth), 'ban');
    const pending = await ok(t.http.get(`/v1/groups/${closed.id}/join-requests`).set(g.auth));
    expect(pending.body.items.map((r: { id: string }) => r.id)).toEqual([request]);
    await ok(t.http.get(`/v1/groups/${group.id}`).set(g.auth));
  });

  it('404 for an unknown game, first, on every route; nothing written', async () => {
    const { g, group, request, mutations } = await arranged();
    const before = await traces(g.gameId);
    for (const unknown of [randomUUID(), 'not-a-game']) {
      for (const [method, path, body] of mutations(group.id, request, { member: 'ann', grouped: 'bob', banned: 'cat' })) {
        notFound(await send(method, path.replace(g.gameId, unknown), body, moderator.auth), 'game');
      }
      notFound(await t.http.get(`${A(unknown)}/groups/${group.id}/join-requests`).set(viewer), 'game');
    }
    expect(await traces(g.gameId)).toEqual(before);
  });

  it("404 for an unknown group or join request, or another game's: nothing written", async () => {
    const { g, group, request } = await arranged();
    const other = await arranged();
    const p = A(g.gameId);
    const before = await traces(g.gameId);
    for (const groupId of [randomUUID(), 'not-a-group', other.group.id]) {
      notFound(await t.http.post(`${p}/groups/${groupId}/members/ann/kick`).set(asAdmin), 'group');
      notFound(await t.http.post(`${p}/groups/${groupId}/bans`).set(asAdmin).send({ userId: 'eve' }), 'group');
      notFound(await t.http.delete(`${p}/groups/${groupId}/bans/bob`).set(asAdmin), 'group');
      notFound(await t.http.get(`${p}/groups/${groupId}/join-requests`).set(asAdmin), 'group');
      notFound(await t.http.delete(`${p}/groups/${groupId}`).set(asAdmin), 'group');
      notFound(await t.http.post(`${p}/groups/${groupId}/restore`).set(asAdmin), 'group');
    }
    for (const id of [randomUUID(), 'not-a-request', other.request]) {
      notFound(await t.http.post(`${p}/join-requests/${id}/approve`).set(asAdmin), 'join request');
      notFound(await t.http.post(`${p}/join-requests/${id}/decline`).set(asAdmin).send({}), 'join request');
    }
    expect(await traces(g.gameId)).toEqual(before);
    expect(request).toBeTruthy();
    expect((await memberOf(g.auth, group.id, 'ann')).status).toBe('active');
  });

  it('404 for a user who is not a member, not banned from the group, or not banned game-wide: nothing written', async () => {
    const { g, group } = await arranged();
    const p = A(g.gameId);
    const before = await traces(g.gameId);
    notFound(await t.http.post(`${p}/groups/${group.id}/members/nobody/kick`).set(asAdmin), 'member');
    notFound(await t.http.delete(`${p}/groups/${group.id}/bans/ann`).set(asAdmin), 'group ban');
    notFound(await t.http.delete(`${p}/groups/${group.id}/bans/nobody`).set(asAdmin), 'group ban');
    notFound(await t.http.delete(`${p}/bans/ann`).set(asAdmin), 'ban');
    notFound(await t.http.delete(`${p}/bans/nobody`).set(asAdmin), 'ban');
    expect(await traces(g.gameId)).toEqual(before);
  });

  it('the API document states each route least role: moderator for the changes, viewer for the list', async () => {
    const doc = (await ok(t.http.get('/openapi.json'))).body as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const roles = new Map<string, unknown>();
    for (const item of Object.values(doc.paths)) for (const op of Object.values(item)) roles.set(op.operationId as string, op['x-svc-operator-role']);
    for (const id of ['adminKickMember', 'adminBanFromGroup', 'adminUnbanFromGroup', 'adminBanUser', 'adminLiftBan', 'adminApproveJoinRequest', 'adminDeclineJoinRequest', 'adminDeleteGroup', 'adminRestoreGroup']) {
      expect([id, roles.get(id)]).toEqual([id, 'moderator']);
    }
    expect(roles.get('adminListGroupJoinRequests')).toBe('viewer');
  });
});
